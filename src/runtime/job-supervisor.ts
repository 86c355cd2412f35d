/**
 * A job under a restart strategy (Flink's failover): it runs its graph as a {@link JobExecution};
 * when that fails with an error a restart can help (see restart-strategy.ts) and the strategy
 * allows one more, the supervisor waits the strategy's delay and runs the graph again, in this
 * process, from the latest checkpoint any attempt completed — else the checkpoint or savepoint the
 * job started from, else from the start. A new attempt is a cold start of every operator: state
 * restored, sources rewound to the checkpoint's offsets, transactional sinks resolving what earlier
 * attempts left prepared (commit up to the checkpoint, roll back the rest), with new transaction
 * ids. Only the first attempt failing to start ends the job at once: that is a mistake to show now
 * (an unreachable database, a wrong option), not a fault to ride out.
 *
 * The job's checkpoint history and counts run across attempts; operator metrics are those of the
 * current attempt (as Flink's). A job that runs out of restarts fails with its last error, which
 * names the strategy's limit and the earlier failures.
 */
import { WeirError } from '../common/errors.js';
import type { JobGraph } from '../dataflow/job-graph.js';
import type { CheckpointRecord, CompletedInfo } from './checkpoint/checkpoint-coordinator.js';
import type { CompletedCheckpoint } from './checkpoint/checkpoint-storage.js';
import { JobExecution, type JobProgress, type JobServices, type JobStatus, type NodeMetrics } from './job-execution.js';
import { isRestartable, RestartBackoff, type BackoffClock, type RestartStrategyConfig } from './restart-strategy.js';

/** One failure the job was restarted after (or, the last one, failed with). */
export interface JobFailure {
  /** Epoch milliseconds of the failure. */
  readonly at: number;
  readonly error: unknown;
}

/** How many checkpoint records the history of a supervised job keeps, over all attempts. */
const HISTORY_SIZE = 100;

/** How many earlier failures the error of a job that ran out of restarts lists. */
const LISTED_FAILURES = 5;

/** Runs a job and restarts it after failures; see the module comment. */
export class JobSupervisor {
  private current: JobExecution;
  private attempts = 1;
  private readonly backoff: RestartBackoff;
  private final: { status: JobStatus; error: unknown; endedAt: number } | undefined;
  private restarting = false;
  private cancelRequested = false;
  private wakeFromBackoff: (() => void) | undefined;
  private starting: Promise<void> | undefined;
  private readonly ended: Promise<void>;
  private markEnded!: () => void;
  private readonly failures: JobFailure[] = [];
  private lastRestart: number | undefined;
  /** What earlier attempts contributed: their checkpoints and counts, and the last checkpoint any completed. */
  private earlierHistory: CheckpointRecord[] = [];
  private earlierStats = { completed: 0, failed: 0 };
  private lastCompleted: CompletedInfo | undefined;

  constructor(
    private graphNow: JobGraph,
    private readonly services: JobServices,
    strategy: RestartStrategyConfig,
    clock?: BackoffClock,
  ) {
    this.backoff = new RestartBackoff(strategy, clock);
    this.current = new JobExecution(graphNow, services);
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  /** The job's graph: the one it started with and the parts added since; a restart runs it. */
  get graph(): JobGraph {
    return this.graphNow;
  }

  /**
   * Adds part `part` of `graph` (the running graph plus that part) to the running attempt at a
   * checkpoint boundary (see {@link JobExecution.addPart}); later attempts run it too. Resolves
   * false, changing nothing, while the job restarts or when the attempt cannot take a part now.
   */
  async addPart(graph: JobGraph, part: string): Promise<boolean> {
    if (this.final !== undefined || this.restarting || this.cancelRequested || this.starting !== undefined) return false;
    const execution = this.current;
    if (!(await execution.addPart(graph, part))) return false;
    // The attempt may have failed right after taking the part: the next attempt runs the graph with it.
    this.graphNow = graph;
    return true;
  }

  /**
   * Removes the parts `parts` from the running attempt at a checkpoint boundary, leaving `graph`
   * (see {@link JobExecution.removeParts}); later attempts run without them. Resolves false,
   * changing nothing, while the job restarts or when the attempt cannot change now.
   */
  async removeParts(graph: JobGraph, parts: ReadonlySet<string>): Promise<boolean> {
    if (this.final !== undefined || this.restarting || this.cancelRequested || this.starting !== undefined) return false;
    if (!(await this.current.removeParts(graph, parts))) return false;
    this.graphNow = graph;
    return true;
  }

  /** The job's status: RESTARTING between a failure and the next attempt running. */
  get status(): JobStatus {
    if (this.final !== undefined) return this.final.status;
    if (this.restarting) return 'RESTARTING';
    const status = this.current.status;
    // Failed, with the decision whether to restart not taken yet.
    return status === 'FAILED' ? 'RESTARTING' : status;
  }

  /** The error that failed the job, once it has failed for good. */
  get error(): unknown {
    return this.final?.error;
  }

  /** When the job finished, failed or was cancelled (epoch ms); undefined while it runs or restarts. */
  get endedAt(): number | undefined {
    return this.final?.endedAt;
  }

  /** True once the current attempt is ending by itself (its sources ended; see {@link JobExecution.ending}). */
  get ending(): boolean {
    return this.final === undefined ? !this.restarting && this.current.ending : this.final.status === 'FINISHED';
  }

  /** True when the job has checkpoint storage. */
  get takesCheckpoints(): boolean {
    return this.current.takesCheckpoints;
  }

  /** The last completed checkpoint or savepoint of any attempt. */
  get lastCheckpoint(): CompletedInfo | undefined {
    return this.current.lastCheckpoint ?? this.lastCompleted;
  }

  /** How many times the job was restarted. */
  get restartCount(): number {
    return this.attempts - 1;
  }

  /** Attempts started so far (1 before any restart); operator metrics start again with each. */
  get attempt(): number {
    return this.attempts;
  }

  /** When the job was last restarted (epoch ms). */
  get lastRestartAt(): number | undefined {
    return this.lastRestart;
  }

  /** The failures the job met, oldest first (those it was restarted after, and the one it failed with). */
  failureHistory(): readonly JobFailure[] {
    return this.failures;
  }

  /** Starts the first attempt; resolves once it runs, or failed to start (which ends the job). */
  async start(): Promise<void> {
    this.starting = this.current.start();
    await this.starting;
    this.starting = undefined;
    if (this.current.status === 'FAILED') {
      this.failures.push({ at: Date.now(), error: this.current.error });
      this.finish('FAILED', this.current.error);
      return;
    }
    // supervise() records every failure of an attempt itself; this catches a fault of its own, so that the job still ends.
    this.supervise().catch((error: unknown) => {
      this.failures.push({ at: Date.now(), error });
      this.finish('FAILED', error);
    });
  }

  /** Resolves with the final status once the job has finished, failed for good or been cancelled. */
  async result(): Promise<JobStatus> {
    await this.ended;
    return this.final!.status;
  }

  /** Stops the job: the running attempt is cancelled, a pending restart does not happen. */
  async cancel(): Promise<void> {
    if (this.final !== undefined) return;
    this.cancelRequested = true;
    this.wakeFromBackoff?.();
    await this.starting;
    await this.current.cancel();
    await this.ended;
  }

  /** Takes a savepoint, then cancels the job; refused while the job restarts. */
  async stopWithSavepoint(): Promise<string> {
    this.requireRunning('stopped with a savepoint');
    return this.current.stopWithSavepoint();
  }

  /** Triggers a checkpoint now and resolves once it is complete and committed; refused while the job restarts. */
  async checkpoint(): Promise<string> {
    this.requireRunning('checkpointed');
    return this.current.checkpoint();
  }

  /** Completed and failed checkpoints of all attempts. */
  checkpointStats(): { completed: number; failed: number } {
    const now = this.current.checkpointStats();
    return { completed: this.earlierStats.completed + now.completed, failed: this.earlierStats.failed + now.failed };
  }

  /** The recent checkpoints of all attempts, oldest first. */
  checkpointHistory(): readonly CheckpointRecord[] {
    const history = [...this.earlierHistory, ...this.current.checkpointHistory()];
    return history.length > HISTORY_SIZE ? history.slice(-HISTORY_SIZE) : history;
  }

  /** Counters and gauges per node of the current attempt. */
  metrics(): NodeMetrics[] {
    return this.current.metrics();
  }

  /** Records read by the current attempt's sources, and their progress. */
  progress(): JobProgress {
    return this.current.progress();
  }

  private requireRunning(what: string): void {
    if (this.status === 'RESTARTING') throw new WeirError('CHECKPOINT_ERROR', `job '${this.graph.name}' is restarting after a failure and cannot be ${what} now`);
  }

  private async supervise(): Promise<void> {
    for (;;) {
      const status = await this.current.result();
      if (this.cancelRequested) return this.finish('CANCELED', undefined);
      if (status !== 'FAILED') return this.finish(status, undefined);
      const error = this.current.error;
      this.failures.push({ at: Date.now(), error });
      const delay = isRestartable(error) ? this.backoff.onFailure() : undefined;
      if (delay === undefined) return this.finish('FAILED', this.finalError(error));
      this.restarting = true;
      this.services.warn(`job '${this.graph.name}' failed and restarts in ${formatDelay(delay)} (restart ${this.attempts} of the ${this.backoff.config.type} strategy): ${messageOf(error)}`);
      await this.sleep(delay);
      if (this.cancelRequested) return this.finish('CANCELED', undefined);
      let restoreFrom: CompletedCheckpoint | undefined;
      try {
        restoreFrom = await this.restorePoint();
      } catch (restoreError) {
        this.failures.push({ at: Date.now(), error: restoreError });
        return this.finish('FAILED', restoreError);
      }
      const checkpointing = this.services.checkpointing;
      this.retire(this.current);
      this.current = new JobExecution(this.graphNow, checkpointing === undefined ? this.services : { ...this.services, checkpointing: { ...checkpointing, restoreFrom } });
      this.attempts++;
      this.lastRestart = Date.now();
      this.restarting = false;
      this.starting = this.current.start();
      await this.starting;
      this.starting = undefined;
      if (this.current.status === 'RUNNING') {
        const from = restoreFrom === undefined ? 'from the start' : `from ${restoreFrom.metadata.kind} ${restoreFrom.metadata.checkpointId} at ${restoreFrom.path}`;
        this.services.warn(`job '${this.graph.name}' restarted ${from}`);
      }
      if (this.cancelRequested) await this.current.cancel();
    }
  }

  /** Keeps what a failed attempt contributes to the job's checkpoint history and counts, before the next one replaces it. */
  private retire(execution: JobExecution): void {
    this.earlierHistory = [...this.earlierHistory, ...execution.checkpointHistory()].slice(-HISTORY_SIZE);
    const stats = execution.checkpointStats();
    this.earlierStats = { completed: this.earlierStats.completed + stats.completed, failed: this.earlierStats.failed + stats.failed };
    this.lastCompleted = execution.lastCheckpoint ?? this.lastCompleted;
  }

  /**
   * Where the next attempt starts: the latest completed checkpoint in storage once an attempt has
   * completed one (it must be at least that one: storage that lost it is an error), else what the
   * job started from.
   */
  private async restorePoint(): Promise<CompletedCheckpoint | undefined> {
    const checkpointing = this.services.checkpointing;
    if (checkpointing === undefined) return undefined;
    const completed = this.current.lastCheckpoint ?? this.lastCompleted;
    if (completed === undefined) return checkpointing.restoreFrom;
    const latest = await checkpointing.storage.latest();
    if (latest === undefined || latest.metadata.checkpointId < completed.id) {
      throw new WeirError('CHECKPOINT_ERROR', `job '${this.graph.name}' cannot restart: its ${completed.kind} ${completed.id} completed at ${completed.path}, but is no longer in ${checkpointing.storage.jobPath}`, {
        permanent: true,
      });
    }
    return latest;
  }

  /** The error of a job that failed for good: the last error, and with restarts exhausted, the limit and the earlier failures. */
  private finalError(error: unknown): unknown {
    if (!isRestartable(error) || this.backoff.config.type === 'none') return error;
    const earlier = this.failures.slice(0, -1);
    const listed = earlier.slice(-LISTED_FAILURES).map((f) => `${new Date(f.at).toISOString()} ${messageOf(f.error)}`);
    const more = earlier.length > listed.length ? `${earlier.length - listed.length} more, then ` : '';
    const history = listed.length === 0 ? '' : `; earlier failures: ${more}${listed.join('; ')}`;
    const code = error instanceof WeirError ? error.code : 'INTERNAL_ERROR';
    return new WeirError(code, `${messageOf(error)} (the job failed ${this.failures.length} times, and ${this.backoff.exhausted()}${history})`, {
      cause: error,
      ...(error instanceof WeirError && error.hint !== undefined ? { hint: error.hint } : {}),
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeFromBackoff = done;
    }).finally(() => {
      this.wakeFromBackoff = undefined;
    });
  }

  private finish(status: JobStatus, error: unknown): void {
    if (this.final !== undefined) return;
    this.restarting = false;
    this.final = { status, error, endedAt: this.current.endedAt ?? Date.now() };
    this.markEnded();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
