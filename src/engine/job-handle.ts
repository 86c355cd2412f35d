/** The handle of a job started by a statement: its identity, status, metrics and control. */
import type { CompletedInfo } from '../runtime/checkpoint/checkpoint-coordinator.js';
import type { CompletedCheckpoint } from '../runtime/checkpoint/checkpoint-storage.js';
import type { JobExecution, JobStatus, NodeMetrics } from '../runtime/job-execution.js';

export type { JobStatus, NodeMetrics };

/** A job as users see it. */
export class JobHandle {
  readonly startedAt = new Date();

  constructor(
    /** Short unique id within the process. */
    readonly id: string,
    /** `insert-into_default_catalog.default_database.t` or `pipeline.name`. */
    readonly name: string,
    private readonly execution: JobExecution,
    /** The checkpoint or savepoint the job resumed from, if it did. */
    readonly resumedFrom?: CompletedCheckpoint,
  ) {}

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

  /** The current status. */
  get status(): JobStatus {
    return this.execution.status;
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

  /** Records in and out per operator. */
  metrics(): NodeMetrics[] {
    return this.execution.metrics();
  }
}
