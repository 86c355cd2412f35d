/** The handle of a job started by a statement: its identity, status, metrics and control. */
import type { CheckpointRecord, CompletedInfo } from '../runtime/checkpoint/checkpoint-coordinator.js';
import type { JobGraph } from '../dataflow/job-graph.js';
import type { CompletedCheckpoint } from '../runtime/checkpoint/checkpoint-storage.js';
import type { JobProgress, JobStatus, NodeMetrics } from '../runtime/job-execution.js';
import type { JobFailure, JobSupervisor } from '../runtime/job-supervisor.js';
import { RateWindow, type NodeRates } from './metric-rates.js';

export type { CheckpointRecord, JobFailure, JobProgress, JobStatus, NodeMetrics, NodeRates };

/** An operator's metrics with its rates over the recent window. */
export type OperatorMetrics = NodeMetrics & NodeRates;

/** How often a running job's counters are sampled for rates. */
const SAMPLE_INTERVAL_MS = 1000;

/** A job as users see it. */
export class JobHandle {
  readonly startedAt = new Date();
  private rates = new RateWindow();
  /** The attempt the rate samples are of (a restart starts the counters again). */
  private sampledAttempt: number;

  constructor(
    /** Short unique id within the process. */
    readonly id: string,
    /** `insert-into_default_catalog.default_database.t` or `pipeline.name`. */
    private currentName: string,
    private readonly execution: JobSupervisor,
    /** The checkpoint or savepoint the job resumed from, if it did. */
    readonly resumedFrom?: CompletedCheckpoint,
  ) {
    this.sampledAttempt = execution.attempt;
    this.rates.add(performance.now(), execution.metrics());
    const sampler = setInterval(() => {
      const status = execution.status;
      if (status === 'FINISHED' || status === 'FAILED' || status === 'CANCELED') {
        clearInterval(sampler);
        return;
      }
      if (execution.attempt !== this.sampledAttempt) {
        this.sampledAttempt = execution.attempt;
        this.rates = new RateWindow();
      }
      this.rates.add(performance.now(), execution.metrics());
    }, SAMPLE_INTERVAL_MS);
    sampler.unref();
  }

  /** `insert-into_default_catalog.default_database.t`, `pipeline.name`, or the graph's name once a part was added (the materialized views). */
  get name(): string {
    return this.currentName;
  }

  /**
   * Adds part `part` of `graph` (the running graph plus that part) to the running job at a
   * checkpoint boundary, without stopping it; the job takes `graph`'s name. Resolves false,
   * changing nothing, when the job cannot take a part now (not running, restarting, ending);
   * rejects, changing nothing, when the part cannot open.
   */
  async addPart(graph: JobGraph, part: string): Promise<boolean> {
    if (!(await this.execution.addPart(graph, part))) return false;
    this.currentName = graph.name;
    return true;
  }

  /**
   * Removes the parts `parts` from the running job at a checkpoint boundary, leaving `graph`,
   * without stopping the others; the job takes `graph`'s name. Resolves false, changing nothing,
   * when the job cannot change now (not running, restarting, ending).
   */
  async removeParts(graph: JobGraph, parts: ReadonlySet<string>): Promise<boolean> {
    if (!(await this.execution.removeParts(graph, parts))) return false;
    this.currentName = graph.name;
    return true;
  }

  /** When the job finished, failed or was cancelled; undefined while it runs. */
  get endedAt(): Date | undefined {
    const end = this.execution.endedAt;
    return end === undefined ? undefined : new Date(end);
  }

  /** The last completed checkpoint or savepoint, when the job takes checkpoints. */
  get lastCheckpoint(): CompletedInfo | undefined {
    return this.execution.lastCheckpoint;
  }

  /** True when the job takes checkpoints (so it can be stopped with a savepoint). */
  get takesCheckpoints(): boolean {
    return this.execution.takesCheckpoints;
  }

  /** Takes a savepoint and stops the job; resolves with the savepoint's folder. */
  stopWithSavepoint(): Promise<string> {
    return this.execution.stopWithSavepoint();
  }

  /** How many checkpoints completed and failed since the job started. */
  checkpointStats(): { completed: number; failed: number } {
    return this.execution.checkpointStats();
  }

  /** Takes a checkpoint now; resolves with its folder once it is complete and committed. */
  checkpoint(): Promise<string> {
    return this.execution.checkpoint();
  }

  /**
   * Takes a checkpoint now (or a savepoint that stops the job, with `stop`), as FLUSH and the
   * restart of materialized views do; resolves with the folder of what committed. A job whose
   * bounded inputs ran out meanwhile finishes instead: its final checkpoint committed everything it
   * wrote, and that is what this resolves with. A failed job throws its error.
   */
  async commitNow(stop: boolean): Promise<string> {
    try {
      return await (stop ? this.execution.stopWithSavepoint() : this.execution.checkpoint());
    } catch (error) {
      if (!this.execution.ending) throw error;
      if ((await this.result()) !== 'FINISHED') throw this.error ?? error;
      const last = this.lastCheckpoint;
      return last === undefined ? 'the final checkpoint' : `chk-${last.id}`;
    }
  }

  /** The current status (RESTARTING between a failure and the next attempt under the restart strategy). */
  get status(): JobStatus {
    return this.execution.status;
  }

  /** How many times the job was restarted after a failure (restart-strategy.type). */
  get restarts(): number {
    return this.execution.restartCount;
  }

  /** When the job was last restarted. */
  get lastRestartAt(): Date | undefined {
    const at = this.execution.lastRestartAt;
    return at === undefined ? undefined : new Date(at);
  }

  /** The failures the job met, oldest first: those it was restarted after, and the one it failed with. */
  failures(): readonly JobFailure[] {
    return this.execution.failureHistory();
  }

  /** The error that failed the job, when it failed. */
  get error(): unknown {
    return this.execution.error;
  }

  /** Resolves with the final status once the job has finished, failed or been cancelled. */
  result(): Promise<JobStatus> {
    return this.execution.result();
  }

  /** Stops the job now. */
  cancel(): Promise<void> {
    return this.execution.cancel();
  }

  /** Counters and gauges per operator. */
  metrics(): NodeMetrics[] {
    return this.execution.metrics();
  }

  /** Counters and gauges per operator with their rates over the last 10 s (zero once the job has ended). */
  operatorMetrics(): OperatorMetrics[] {
    const metrics = this.execution.metrics();
    const rates = this.status === 'RUNNING' && this.execution.attempt === this.sampledAttempt ? this.rates.rates(performance.now(), metrics) : new Map<string, NodeRates>();
    return metrics.map((m) => ({ ...m, ...(rates.get(m.node) ?? { recordsInPerSecond: 0, recordsOutPerSecond: 0, busyRatio: 0 }) }));
  }

  /** The recent checkpoints and savepoints, oldest first. */
  checkpointHistory(): readonly CheckpointRecord[] {
    return this.execution.checkpointHistory();
  }

  /** Records read by the sources and, when they know it, how far they are through their input. */
  progress(): JobProgress {
    return this.execution.progress();
  }
}
