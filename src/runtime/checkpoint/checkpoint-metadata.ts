/**
 * What a completed checkpoint records: the job it belongs to (with a fingerprint of its graph, so
 * a checkpoint of another query is refused), and for every subtask its state file (with the
 * file's SHA-256) and its small operator state (source offsets, a sink's prepared transactions).
 * Written last, atomically, with a checksum of its own content: a checkpoint folder without
 * `_metadata` is not a checkpoint, and one whose `_metadata` or state files do not match their
 * checksums is corrupt — never silently skipped.
 */

/**
 * Version of the metadata format weir writes: 2 adds the checksums of the metadata and its state
 * files; 3 replaces a subtask's one keyed state file by a chain of them (incremental checkpoints),
 * which a weir reading only version 2 would silently ignore; 4 marks finished subtasks (no keyed
 * state, restored finished), which a weir reading only version 3 would restore as running subtasks
 * with empty state. Versions 1–3 have no finished subtasks and restore as before.
 */
export const CHECKPOINT_METADATA_VERSION = 4;

/** The metadata versions weir reads: 1 (no checksums), 2, 3 and 4. */
export const READABLE_METADATA_VERSIONS: readonly number[] = [1, 2, 3, 4];

/**
 * One keyed state file of a subtask's chain. `file` is relative to the folder of the checkpoint
 * whose metadata lists it: a plain name for a file that checkpoint wrote, `../chk-<id>/<name>` for
 * one an earlier checkpoint wrote (that folder is kept while a retained checkpoint refers to it).
 */
export interface KeyedStateFileRef {
  readonly file: string;
  /** `sha256:<hex>` of the file's bytes. */
  readonly checksum: string;
  readonly bytes: number;
  /** `full`: every entry of the subtask's key groups; `delta`: changes on top of the files before it. */
  readonly kind: 'full' | 'delta';
}

/** The state of one subtask in a checkpoint. */
export interface SubtaskState {
  readonly subtask: number;
  /** Versions 1 and 2: the file (relative to the checkpoint folder) holding the serialized keyed state; absent when empty. */
  readonly keyedStateFile?: string;
  /** `sha256:<hex>` of the keyed state file, checked when it is read (absent in version 1). */
  readonly keyedStateChecksum?: string;
  /**
   * Version 3: the keyed state as a chain — a full file, then deltas, applied in order; empty or
   * absent when the subtask had no keyed state.
   */
  readonly keyedStateChain?: readonly KeyedStateFileRef[];
  /** The key groups the subtask owned: [first, last] inclusive. */
  readonly keyGroups: readonly [number, number];
  /** Operator state as JSON-serialisable data (source offset, prepared transactions, buffered rows). */
  readonly operatorState?: unknown;
  /**
   * Version 4: the subtask had finished — a source had read its input to the end, an operator had
   * processed end of input on every input and so emitted all it ever will (as Flink's FLIP-147).
   * It holds no keyed state; only its operator state (a source's offset, a sink's prepared
   * transactions). Restored, it starts finished: it reads and emits nothing.
   */
  readonly finished?: boolean;
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
