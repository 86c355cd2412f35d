/**
 * The checkpoint coordinator of one job (Flink's CheckpointCoordinator): triggers checkpoint n on
 * a timer (or on request: savepoints, the final checkpoint of a bounded job) by asking every
 * source to inject barrier n, collects one acknowledgement per subtask, then makes the checkpoint
 * durable — `_metadata` written last — and only then notifies every operator, so that sinks
 * commit. One checkpoint is in flight at a time. Every failure of a checkpoint — its trigger (no id
 * could be reserved), a subtask's snapshot, the timeout, its metadata — is recorded in the history
 * (FAILED with the reason) and counted; more failed checkpoints in a row than tolerated
 * (`execution.checkpointing.tolerable-failed-checkpoints`) fail the job. A failed savepoint is
 * recorded and reported to whoever asked for it, but not counted (as in Flink). Once `_metadata`
 * is durable the checkpoint is complete: deleting old checkpoints may then fail with a warning,
 * and only a failed commit (notifyCheckpointComplete) fails the job.
 */
import { WeirError } from '../../common/errors.js';
import type { Barrier, CheckpointingMode } from './barrier.js';
import { CHECKPOINT_METADATA_VERSION, type CheckpointMetadata, type SubtaskState } from './checkpoint-metadata.js';
import type { CheckpointStorage } from './checkpoint-storage.js';
import { failpoint } from './failpoints.js';

/** Checkpoint settings (Flink's `execution.checkpointing.*` and `state.checkpoints.*`). */
export interface CheckpointConfig {
  /** Milliseconds between checkpoints; undefined when periodic checkpoints are off. */
  readonly interval: number | undefined;
  readonly mode: CheckpointingMode;
  readonly timeout: number;
  readonly tolerableFailures: number;
  readonly retained: number;
  /**
   * Incremental checkpoints (`execution.checkpointing.incremental`): keyed state writes only what
   * changed since the last completed checkpoint, plus references to the files it builds on.
   */
  readonly incremental?: boolean;
}

/** What the coordinator drives. */
export interface CoordinatorHost {
  readonly jobName: string;
  readonly graphFingerprint: string;
  /** The job graph's zone (`table.local-time-zone`), absent for UTC. */
  readonly localTimeZone?: string;
  /** Each part's fingerprint, for a graph of parts. */
  readonly partFingerprints?: Readonly<Record<string, string>>;
  readonly maxParallelism: number;
  /** Node id → parallelism, for every node of the job. */
  readonly parallelism: Readonly<Record<string, number>>;
  /** Asks every source subtask to inject this barrier before its next poll. */
  injectBarrier(barrier: Barrier): void;
  /** Delivers notifyCheckpointComplete to every operator; rejects when a commit fails. */
  notifyComplete(checkpointId: number): Promise<void>;
  /** Fails the job. */
  fail(error: unknown): void;
  /** Reports a problem that does not fail the job (an old checkpoint that could not be deleted). */
  warn(message: string): void;
}

/** A subtask's acknowledgement of a barrier. */
export interface Acknowledgement {
  readonly nodeId: string;
  readonly state: SubtaskState;
  /** Bytes the subtask wrote for this checkpoint (its keyed state file and operator state), for metrics. */
  readonly bytes?: number;
  /** Milliseconds the subtask spent in the synchronous part of its snapshot, for metrics. */
  readonly syncMs?: number;
  /** Bytes of keyed state the subtask wrote for this checkpoint (a delta's, or a full file's). */
  readonly keyedBytes?: number;
  /** True when the subtask wrote a delta on an earlier checkpoint (false when it wrote a full file or no keyed state). */
  readonly incremental?: boolean;
}

/** One checkpoint or savepoint of the job as metrics see it (Flink's checkpoint history). */
export interface CheckpointRecord {
  /** Undefined for a checkpoint whose trigger failed before an id was reserved. */
  readonly id: number | undefined;
  readonly kind: Barrier['kind'];
  status: 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
  /** Epoch milliseconds when it was triggered. */
  readonly triggeredAt: number;
  /** From trigger to completion or abort; undefined while in progress. */
  durationMs?: number;
  /** Bytes written by all subtasks; undefined until it completed. */
  sizeBytes?: number;
  /**
   * Milliseconds the subtasks spent in the synchronous parts of their snapshots, summed (Flink's
   * sync duration): subtasks share one thread, so processing stops for that long.
   */
  syncMs?: number;
  /**
   * The synchronous pause of one subtask (processing stops for it at the barrier), in milliseconds:
   * median, 99th percentile (nearest rank) and maximum over the subtasks that acknowledged.
   */
  syncP50Ms?: number;
  syncP99Ms?: number;
  syncMaxMs?: number;
  /** Bytes of keyed state written by all subtasks (the deltas' bytes for an incremental checkpoint); undefined until it completed. */
  stateBytes?: number;
  /** True when at least one subtask wrote a delta (the checkpoint builds on earlier files), false when every keyed state file it wrote is full; undefined until it completed. */
  incremental?: boolean;
  /** Why it was aborted. */
  failure?: string;
}

/** How many checkpoints the history keeps (oldest dropped first). */
const HISTORY_SIZE = 100;

interface PendingCheckpoint {
  readonly barrier: Barrier;
  readonly acks: Map<string, Acknowledgement>;
  readonly timer: NodeJS.Timeout;
  readonly completion: { resolve: (path: string) => void; reject: (error: unknown) => void };
  readonly promise: Promise<string>;
}

/** Facts about the last completed checkpoint, for SHOW JOBS and metrics. */
export interface CompletedInfo {
  readonly id: number;
  readonly path: string;
  readonly kind: CheckpointMetadata['kind'];
  readonly durationMs: number;
  readonly sizeBytes: number;
}

/** Coordinates the checkpoints of one job. */
export class CheckpointCoordinator {
  private pending: PendingCheckpoint | undefined;
  /** Triggers run one after another: each waits until the previous checkpoint completed or was aborted. */
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private periodic: NodeJS.Timeout | undefined;
  private consecutiveFailures = 0;
  private stopped = false;
  private startedAt = new Map<number, number>();
  private readonly records: CheckpointRecord[] = [];
  /** The last completed checkpoint or savepoint. */
  lastCompleted: CompletedInfo | undefined;
  /** Completed checkpoints since the job started. */
  completedCount = 0;
  /** Aborted checkpoints since the job started. */
  failedCount = 0;

  constructor(
    private readonly host: CoordinatorHost,
    private readonly storage: CheckpointStorage,
    readonly config: CheckpointConfig,
  ) {}

  /** The recent checkpoints, oldest first (at most the last 100). */
  get history(): readonly CheckpointRecord[] {
    return this.records;
  }

  private record(id: number): CheckpointRecord | undefined {
    for (let i = this.records.length - 1; i >= 0; i--) if (this.records[i]!.id === id) return this.records[i];
    return undefined;
  }

  private addRecord(record: CheckpointRecord): void {
    this.records.push(record);
    if (this.records.length > HISTORY_SIZE) this.records.shift();
  }

  private markFailed(id: number, reason: unknown): void {
    const record = this.record(id);
    if (record === undefined || record.status !== 'IN_PROGRESS') return;
    record.status = 'FAILED';
    record.durationMs = performance.now() - (this.startedAt.get(id) ?? performance.now());
    record.failure = messageOf(reason);
  }

  /**
   * Counts a failed checkpoint or savepoint; a checkpoint also counts against the tolerance, and
   * fails the job once more have failed in a row than tolerated.
   */
  private countFailure(kind: Barrier['kind'], reason: unknown): void {
    this.failedCount++;
    if (kind !== 'checkpoint') return;
    this.consecutiveFailures++;
    if (this.consecutiveFailures <= this.config.tolerableFailures) return;
    this.host.fail(
      new WeirError(
        'CHECKPOINT_ERROR',
        `${messageOf(reason)}; ${this.consecutiveFailures} checkpoints failed in a row, more than tolerated (execution.checkpointing.tolerable-failed-checkpoints = ${this.config.tolerableFailures})`,
        { cause: reason },
      ),
    );
  }

  /** Starts periodic checkpoints (when an interval is configured). */
  start(): void {
    if (this.config.interval === undefined) return;
    this.periodic = setInterval(() => {
      // Nothing is lost by not awaiting: every failure is recorded and counted before trigger()
      // rejects (and fails the job beyond the tolerance); the other rejection is "the job has stopped".
      if (this.queued === 0) this.trigger('checkpoint').catch(ignoreRecordedFailure);
    }, this.config.interval);
    this.periodic.unref();
  }

  /** Stops triggering; a pending checkpoint is abandoned. */
  stop(): void {
    this.stopped = true;
    if (this.periodic !== undefined) clearInterval(this.periodic);
    if (this.pending !== undefined) {
      clearTimeout(this.pending.timer);
      const error = new WeirError('CHECKPOINT_ERROR', `checkpoint ${this.pending.barrier.id} was abandoned: the job stopped`);
      this.markFailed(this.pending.barrier.id, error);
      this.pending.completion.reject(error);
      this.pending = undefined;
    }
  }

  /**
   * Triggers a checkpoint or savepoint (after the one in flight, if any) and resolves with the
   * folder of the completed checkpoint; rejects when it is aborted.
   */
  trigger(kind: Barrier['kind'], final = false): Promise<string> {
    this.queued++;
    const turn = this.queue.then(() => this.begin(kind, final));
    const done = turn.finally(() => this.queued--);
    // The queue only orders triggers: the caller gets the failure from `done` (recorded and counted before it rejects).
    this.queue = done.catch(() => undefined);
    return done;
  }

  /**
   * Runs `change` between two checkpoints: after the one in flight (and any triggered before) has
   * completed or aborted, and before the next one begins — a checkpoint boundary, where no barrier
   * is on its way and every completed checkpoint has been committed. The job's shape (the host's
   * parallelism and fingerprints) may change there: the next checkpoint expects the new shape.
   * Rejects when the job has stopped.
   */
  atBoundary<T>(change: () => Promise<T>): Promise<T> {
    this.queued++;
    const turn = this.queue.then(() => {
      if (this.stopped) throw new WeirError('CHECKPOINT_ERROR', 'the job has stopped');
      return change();
    });
    const done = turn.finally(() => this.queued--);
    this.queue = done.catch(() => undefined);
    return done;
  }

  private async begin(kind: Barrier['kind'], final: boolean): Promise<string> {
    if (this.stopped) throw new WeirError('CHECKPOINT_ERROR', 'the job has stopped');
    const id = await this.reserveId(kind);
    if (this.stopped) throw new WeirError('CHECKPOINT_ERROR', 'the job has stopped');
    const barrier: Barrier = { id, kind, final };
    let completion!: PendingCheckpoint['completion'];
    const promise = new Promise<string>((resolve, reject) => (completion = { resolve, reject }));
    // Returned to the trigger's caller, who gets the failure; this only keeps a rejection before it is awaited from being reported as unhandled.
    promise.catch(() => undefined);
    const timer = setTimeout(() => void this.abort(id, new WeirError('CHECKPOINT_ERROR', `${kind} ${id} expired after ${this.config.timeout} ms before all subtasks acknowledged it`)), this.config.timeout);
    timer.unref();
    this.pending = { barrier, acks: new Map(), timer, completion, promise };
    this.startedAt.set(id, performance.now());
    this.addRecord({ id, kind, status: 'IN_PROGRESS', triggeredAt: Date.now() });
    this.host.injectBarrier(barrier);
    return promise;
  }

  /** The next checkpoint id; a storage that cannot give one fails the checkpoint (recorded, counted) before it starts. */
  private async reserveId(kind: Barrier['kind']): Promise<number> {
    const triggeredAt = Date.now();
    const started = performance.now();
    try {
      return await this.storage.nextCheckpointId();
    } catch (error) {
      const failure = new WeirError('CHECKPOINT_ERROR', `${kind} could not be triggered: ${messageOf(error)}`, { cause: error });
      this.addRecord({ id: undefined, kind, status: 'FAILED', triggeredAt, durationMs: performance.now() - started, failure: failure.message });
      this.countFailure(kind, failure);
      throw failure;
    }
  }

  /** Records a subtask's acknowledgement; the last one completes the checkpoint. */
  acknowledge(checkpointId: number, ack: Acknowledgement): void {
    const pending = this.pending;
    if (pending === undefined || pending.barrier.id !== checkpointId) return;
    pending.acks.set(`${ack.nodeId}#${ack.state.subtask}`, ack);
    const record = this.record(checkpointId);
    if (record !== undefined && ack.syncMs !== undefined) record.syncMs = (record.syncMs ?? 0) + ack.syncMs;
    if (pending.acks.size === this.expectedAcks()) void this.complete(pending);
  }

  /**
   * A subtask could not take its snapshot: the checkpoint is aborted. A checkpoint already aborted
   * for another reason gets a warning — unless the job has stopped, whose own failure says it.
   */
  decline(checkpointId: number, reason: unknown): void {
    if (this.pending?.barrier.id === checkpointId) void this.abort(checkpointId, reason);
    else if (!this.stopped) this.host.warn(`a snapshot for checkpoint ${checkpointId}, which had already failed, failed too: ${messageOf(reason)}`);
  }

  private expectedAcks(): number {
    return Object.values(this.host.parallelism).reduce((a, b) => a + b, 0);
  }

  private async complete(pending: PendingCheckpoint): Promise<void> {
    const { barrier } = pending;
    clearTimeout(pending.timer);
    let path: string;
    try {
      failpoint('checkpoint.after-acks-before-metadata');
      path = await this.storage.commitMetadata(this.metadataOf(pending));
    } catch (error) {
      // Not durable: the checkpoint failed, as one that timed out does.
      await this.abort(barrier.id, error);
      return;
    }
    // `_metadata` is durable: the checkpoint is complete, whatever happens below.
    this.pending = undefined;
    this.consecutiveFailures = 0;
    this.completedCount++;
    const durationMs = performance.now() - (this.startedAt.get(barrier.id) ?? 0);
    let sizeBytes = 0;
    for (const ack of pending.acks.values()) sizeBytes += ack.bytes ?? 0;
    this.lastCompleted = { id: barrier.id, path, kind: barrier.kind, durationMs, sizeBytes };
    const record = this.record(barrier.id);
    if (record !== undefined) Object.assign(record, { status: 'COMPLETED', durationMs, sizeBytes, ...keyedStateFigures(pending.acks.values()) });
    this.startedAt.delete(barrier.id);
    try {
      failpoint('checkpoint.after-metadata-before-notify');
      if (barrier.final) failpoint('checkpoint.final-after-metadata');
      if (barrier.kind === 'checkpoint') await this.retainCheckpoints(barrier.id);
      await this.host.notifyComplete(barrier.id);
      pending.completion.resolve(path);
    } catch (error) {
      pending.completion.reject(error);
      this.host.fail(error);
    }
  }

  private metadataOf(pending: PendingCheckpoint): CheckpointMetadata {
    const { barrier } = pending;
    const operators: Record<string, { parallelism: number; subtasks: SubtaskState[] }> = {};
    for (const [nodeId, parallelism] of Object.entries(this.host.parallelism)) operators[nodeId] = { parallelism, subtasks: [] };
    for (const ack of pending.acks.values()) operators[ack.nodeId]!.subtasks.push(ack.state);
    for (const entry of Object.values(operators)) entry.subtasks.sort((a, b) => a.subtask - b.subtask);
    return {
      version: CHECKPOINT_METADATA_VERSION,
      jobName: this.host.jobName,
      checkpointId: barrier.id,
      kind: barrier.kind,
      completedAt: Date.now(),
      graphFingerprint: this.host.graphFingerprint,
      ...(this.host.localTimeZone === undefined ? {} : { localTimeZone: this.host.localTimeZone }),
      ...(this.host.partFingerprints === undefined ? {} : { partFingerprints: this.host.partFingerprints }),
      maxParallelism: this.host.maxParallelism,
      finished: barrier.final,
      operators,
    };
  }

  /** Deletes checkpoints beyond the retained ones; a failure only warns (the completed checkpoint is durable, and the next one tries again). */
  private async retainCheckpoints(completedId: number): Promise<void> {
    try {
      await this.storage.retain(this.config.retained);
    } catch (error) {
      this.host.warn(`checkpoint ${completedId} is complete, but older checkpoints could not be deleted (the next checkpoint tries again): ${messageOf(error)}`);
    }
  }

  private async abort(checkpointId: number, reason: unknown): Promise<void> {
    const pending = this.pending;
    if (pending === undefined || pending.barrier.id !== checkpointId) return;
    const { kind } = pending.barrier;
    clearTimeout(pending.timer);
    this.pending = undefined;
    this.markFailed(checkpointId, reason);
    this.startedAt.delete(checkpointId);
    this.countFailure(kind, reason);
    pending.completion.reject(reason);
    // A folder that cannot be removed now is removed by retention after the next completed checkpoint.
    await this.storage.discard(checkpointId, kind).catch((error: unknown) => {
      this.host.warn(`could not delete the folder of failed ${kind} ${checkpointId}: ${messageOf(error)}`);
    });
  }
}

/** The synchronous pauses (p50, p99, max over subtasks) and keyed state bytes of a checkpoint's acknowledgements. */
function keyedStateFigures(acks: Iterable<Acknowledgement>): Pick<CheckpointRecord, 'syncP50Ms' | 'syncP99Ms' | 'syncMaxMs' | 'stateBytes' | 'incremental'> {
  const pauses: number[] = [];
  let stateBytes = 0;
  let incremental = false;
  for (const ack of acks) {
    if (ack.syncMs !== undefined) pauses.push(ack.syncMs);
    stateBytes += ack.keyedBytes ?? 0;
    incremental ||= ack.incremental === true;
  }
  pauses.sort((a, b) => a - b);
  const rank = (q: number): number | undefined => (pauses.length === 0 ? undefined : pauses[Math.min(pauses.length - 1, Math.ceil(q * pauses.length) - 1)]);
  const figures: Pick<CheckpointRecord, 'syncP50Ms' | 'syncP99Ms' | 'syncMaxMs' | 'stateBytes' | 'incremental'> = { stateBytes, incremental };
  if (pauses.length > 0) Object.assign(figures, { syncP50Ms: rank(0.5), syncP99Ms: rank(0.99), syncMaxMs: pauses[pauses.length - 1] });
  return figures;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** For a trigger nobody awaits: its failure has been recorded and counted before the promise rejects. */
function ignoreRecordedFailure(): void {}
