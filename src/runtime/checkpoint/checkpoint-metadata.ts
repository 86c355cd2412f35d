/**
 * What a completed checkpoint records: the job it belongs to (with a fingerprint of its graph, so
 * a checkpoint of another query is refused), and for every subtask its state file (with the
 * file's SHA-256) and its small operator state (source offsets, a sink's prepared transactions).
 * Written last, atomically, with a checksum of its own content: a checkpoint folder without
 * `_metadata` is not a checkpoint, and one whose `_metadata` or state files do not match their
 * checksums is corrupt — never silently skipped.
 */

/** Version of the metadata format weir writes: 2 adds the checksums of the metadata and its state files. */
export const CHECKPOINT_METADATA_VERSION = 2;

/** The metadata versions weir reads: 1 (no checksums) and 2. */
export const READABLE_METADATA_VERSIONS: readonly number[] = [1, 2];

/** The state of one subtask in a checkpoint. */
export interface SubtaskState {
  readonly subtask: number;
  /** File (relative to the checkpoint folder) holding the serialized keyed state; absent when empty. */
  readonly keyedStateFile?: string;
  /** `sha256:<hex>` of the keyed state file, checked when it is read (absent in version 1). */
  readonly keyedStateChecksum?: string;
  /** The key groups the subtask owned: [first, last] inclusive. */
  readonly keyGroups: readonly [number, number];
  /** Operator state as JSON-serialisable data (source offset, prepared transactions, buffered rows). */
  readonly operatorState?: unknown;
}

/** The metadata of one completed checkpoint or savepoint. */
export interface CheckpointMetadata {
  /** {@link CHECKPOINT_METADATA_VERSION} when written; any of {@link READABLE_METADATA_VERSIONS} when read. */
  readonly version: number;
  readonly jobName: string;
  readonly checkpointId: number;
  readonly kind: 'checkpoint' | 'savepoint';
  /** Epoch milliseconds when the checkpoint completed. */
  readonly completedAt: number;
  /** Identifies the job graph (independent of parallelism); a restore into another graph is refused. */
  readonly graphFingerprint: string;
  /** The zone the job computed TIMESTAMP_LTZ in (`table.local-time-zone`, resolved); absent for UTC. */
  readonly localTimeZone?: string;
  /** For a graph of independent parts: each part's fingerprint, so that unchanged parts restore while others start afresh. */
  readonly partFingerprints?: Readonly<Record<string, string>>;
  readonly maxParallelism: number;
  /** True for the final checkpoint of a job whose sources all ended. */
  readonly finished: boolean;
  /** Per job-graph node id: its parallelism and subtask states. */
  readonly operators: Readonly<Record<string, { readonly parallelism: number; readonly subtasks: readonly SubtaskState[] }>>;
}
