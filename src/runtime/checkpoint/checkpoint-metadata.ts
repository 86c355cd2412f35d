/**
 * What a completed checkpoint records: the job it belongs to (with a fingerprint of its graph, so
 * a checkpoint of another query is refused), and for every subtask its state file and its small
 * operator state (source offsets, a sink's prepared transactions). Written last, atomically:
 * a checkpoint folder without `_metadata` is not a checkpoint.
 */

/** Version of the metadata format. */
export const CHECKPOINT_METADATA_VERSION = 1;

/** The state of one subtask in a checkpoint. */
export interface SubtaskState {
  readonly subtask: number;
  /** File (relative to the checkpoint folder) holding the serialized keyed state; absent when empty. */
  readonly keyedStateFile?: string;
  /** The key groups the subtask owned: [first, last] inclusive. */
  readonly keyGroups: readonly [number, number];
  /** Operator state as JSON-serialisable data (source offset, prepared transactions, buffered rows). */
  readonly operatorState?: unknown;
}

/** The metadata of one completed checkpoint or savepoint. */
export interface CheckpointMetadata {
  readonly version: typeof CHECKPOINT_METADATA_VERSION;
  readonly jobName: string;
  readonly checkpointId: number;
  readonly kind: 'checkpoint' | 'savepoint';
  /** Epoch milliseconds when the checkpoint completed. */
  readonly completedAt: number;
  /** Identifies the job graph (independent of parallelism); a restore into another graph is refused. */
  readonly graphFingerprint: string;
  /** For a graph of independent parts: each part's fingerprint, so that unchanged parts restore while others start afresh. */
  readonly partFingerprints?: Readonly<Record<string, string>>;
  readonly maxParallelism: number;
  /** True for the final checkpoint of a job whose sources all ended. */
  readonly finished: boolean;
  /** Per job-graph node id: its parallelism and subtask states. */
  readonly operators: Readonly<Record<string, { readonly parallelism: number; readonly subtasks: readonly SubtaskState[] }>>;
}
