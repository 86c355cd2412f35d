/**
 * Where checkpoints live: a folder per job under `state.checkpoints.dir`, a folder per checkpoint
 * (`chk-<id>`) holding state files and, written last, `_metadata`. Savepoints go to
 * `savepoint-<id>` folders that retention never deletes. Checkpoint ids strictly increase across
 * restarts (a durable counter).
 */
import type { CheckpointMetadata } from './checkpoint-metadata.js';

/** A completed checkpoint or savepoint found in storage. */
export interface CompletedCheckpoint {
  readonly metadata: CheckpointMetadata;
  /** The folder that holds it (absolute path); state file names in the metadata are relative to it. */
  readonly path: string;
}

/** A state file written for a checkpoint: its name relative to the checkpoint folder and its checksum. */
export interface StateFileRef {
  readonly name: string;
  /** `sha256:<hex>` of the file's bytes. */
  readonly checksum: string;
}

/** A state file's bytes: one buffer, its parts in order, or a stream of its parts in batches (each written as it comes, in one write). */
export type StateFileData = Uint8Array | readonly Uint8Array[] | AsyncIterable<readonly Uint8Array[]>;

/** Checkpoint storage for one job. */
export interface CheckpointStorage {
  /** The job's folder. */
  readonly jobPath: string;
  /** Reserves the next checkpoint id: larger than every id ever reserved for this job, durably. */
  nextCheckpointId(): Promise<number>;
  /** Writes a state file of checkpoint `checkpointId` (fsynced); returns its name relative to the checkpoint folder and its checksum. */
  writeStateFile(checkpointId: number, kind: CheckpointMetadata['kind'], name: string, data: StateFileData): Promise<StateFileRef>;
  /** Makes a checkpoint complete: `_metadata` written to a temporary name, fsynced, renamed, folder fsynced. Returns its folder. */
  commitMetadata(metadata: CheckpointMetadata): Promise<string>;
  /** Deletes the folder of a checkpoint that did not complete. */
  discard(checkpointId: number, kind: CheckpointMetadata['kind']): Promise<void>;
  /** Deletes completed checkpoints (never savepoints) beyond the newest `retained`, except those whose files a retained one refers to. */
  retain(retained: number): Promise<void>;
  /**
   * The newest completed checkpoint or savepoint of this job, if any. Folders without `_metadata`
   * (never completed) are skipped; a `_metadata` that cannot be read, is corrupt or of an unknown
   * version throws CHECKPOINT_ERROR naming the file (never a fall-back to an older checkpoint).
   */
  latest(): Promise<CompletedCheckpoint | undefined>;
  /**
   * Reads a state file of a completed checkpoint (`name` relative to its folder: a plain name, or
   * `../chk-<id>/<name>` for a file of an earlier checkpoint); with `checksum`, throws
   * CHECKPOINT_ERROR when the bytes do not match it.
   */
  readStateFile(checkpoint: CompletedCheckpoint, name: string, checksum?: string): Promise<Uint8Array>;
  /** Removes everything of this job (for `--fresh`). */
  clear(): Promise<void>;
}
