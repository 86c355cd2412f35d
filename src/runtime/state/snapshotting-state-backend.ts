/**
 * What the runtime needs of a subtask's keyed state backend beyond the operator-facing
 * {@link KeyedStateBackend}: asynchronous full and incremental snapshots in the key-group-framed
 * file format (key-group-state-file.ts), restores of such files (whole, or only the key groups a
 * rescaled subtask owns), and the release of what the backend holds outside the heap. Every
 * backend (`hashmap`, the test-only `copying`, the disk backend on LMDB) implements it and writes
 * the same files, so a checkpoint of one restores into any other.
 */
import type { Key } from '../../common/key-codec.js';
import type { KeyedStateBackend } from './keyed-state-backend.js';

/** What a snapshot is for. */
export interface SnapshotRequest {
  /** `full`: every entry; `delta`: the changes since the last completed checkpoint (change tracking only). */
  readonly kind: 'full' | 'delta';
  /**
   * The checkpoint it belongs to: the keys changed so far are frozen for it, and forgotten once it
   * (or a later one) completes. Absent for savepoints and tools, which leave change tracking alone.
   */
  readonly checkpointId?: number;
}

/**
 * One snapshot of a subtask's keyed state being written, begun at a barrier. It is exactly the
 * state at the barrier whatever processing does while it is written.
 */
export interface StateSnapshotWriter {
  readonly kind: 'full' | 'delta';
  /** True when there is nothing to write: no entry (full) or no changed key (delta); no file is written then. */
  readonly empty: boolean;
  /** True once everything is written. */
  readonly done: boolean;
  /** Bytes of the parts produced so far (all of them once done). */
  readonly byteLength: number;
  /**
   * Of those, the bytes of frames that only append rows to lists (deltas): they replace nothing a
   * restore reads before them, so they do not count toward rematerialising a chain (keyed-state-chain.ts).
   */
  readonly appendedBytes: number;
  /** Writes one chunk; returns true once everything is written. */
  step(): boolean;
  /**
   * The file's parts (header first) as they are written, a chunk's parts at a time, yielding to
   * the event loop between chunks; the writer keeps none it handed out. Stopping early abandons
   * the snapshot.
   */
  stream(): AsyncGenerator<readonly Uint8Array[], void, undefined>;
  /** Writes what is left at once (tests and tools); returns the file's bytes (when nothing was streamed before). */
  writeSync(): Uint8Array;
  /** Abandons the snapshot: releases what the writer holds (copies, a read transaction); later steps throw. */
  abort(): void;
}

/** A keyed state backend the runtime can snapshot, restore and release (see the module comment). */
export interface SnapshottingStateBackend extends KeyedStateBackend {
  /** True when the backend remembers the keys changed since the last completed checkpoint (so snapshots can be deltas). */
  readonly tracksChanges: boolean;
  /**
   * The synchronous part of a snapshot: its cost must not grow with the state (only with what
   * changed since the previous one). A `delta` needs change tracking.
   */
  beginSnapshot(request: SnapshotRequest): StateSnapshotWriter;
  /** Checkpoint `checkpointId` is complete: the changes it (and earlier ones) covered are forgotten. */
  notifyCheckpointComplete(checkpointId: number): void;
  /** A full snapshot serialised at once into one buffer (tests and tools); undefined when there is no keyed state at all. */
  snapshot(): Uint8Array | undefined;
  /** Applies a state file (full, or a delta on top of what was applied before), keeping only the keys `owns` accepts. */
  restore(snapshot: Uint8Array, owns?: (key: Key) => boolean, source?: string): void;
  /**
   * Applies a state file keeping only the key groups `ownsGroup` accepts (other groups' frames are
   * skipped undecoded). With `newer` (backends that {@link restoresNewestFirst} only), the files
   * of a chain are applied newest first: an entry of a key a newer file already set or removed is
   * passed over without being decoded.
   */
  restoreKeyGroups(snapshot: Uint8Array, ownsGroup: (keyGroup: number) => boolean, source?: string, newer?: RemovedKeys): void;
  /** True when {@link restoreKeyGroups} takes a chain newest first; a backend that does not is given the chain's files oldest first. */
  readonly restoresNewestFirst: boolean;
  /** Entries over all declared states, for metrics (the disk backend counts what it has flushed to disk). */
  stateEntries(): number;
  /** Releases what the backend holds outside the heap (the disk backend's files); idempotent. The backend is unusable afterwards. */
  dispose(): void;
}

/**
 * While one chain of state files (full file, then deltas) is applied newest first into an empty
 * backend: per declared state and key group, the keys a newer file removed. A key is decided by
 * the newest file that mentions it: set (the backend holds it already) or removed (it is here), so
 * older files' entries of it are passed over — except a list a newer file only appended rows to:
 * the backend holds those rows, and its first rows are still to come from older files
 * ({@link listPrefixes}).
 */
export class RemovedKeys {
  private readonly sets = new Map<string, Set<Key>[]>();
  private readonly prefixes = new Map<string, Map<Key, number>[]>();
  private files = 0;

  /**
   * True until a file of the chain was applied: the backend then holds none of the chain's keys
   * (another chain's are of other key groups), so the newest file needs no checks.
   */
  get newest(): boolean {
    return this.files === 0;
  }

  /** A file of the chain was applied. */
  applied(): void {
    this.files++;
  }

  /** The removed keys of a declared state in a key group (created empty when missing). */
  of(state: string, keyGroup: number): Set<Key> {
    return slot(this.sets, state, keyGroup, () => new Set());
  }

  /**
   * Of a list state in a key group: the keys whose list the backend holds only the end of (rows
   * newer files appended), with how many rows of it older files must still give (created empty
   * when missing).
   */
  listPrefixes(state: string, keyGroup: number): Map<Key, number> {
    return slot(this.prefixes, state, keyGroup, () => new Map());
  }

  /** The whole chain was applied: throws naming `source` when a list still lacks its first rows (no file of the chain had them). */
  checkComplete(source: string): void {
    for (const [state, groups] of this.prefixes) {
      for (const keys of groups) {
        if (keys === undefined || keys.size === 0) continue;
        const [key, rows] = keys.entries().next().value!;
        throw new Error(`the state files of ${source} do not form a chain: a delta appends to the list of key ${String(key)} of state '${state}' after ${rows} rows that no file before it holds`);
      }
    }
  }
}

/** The value of a state and key group in `by`, created with `create` when missing. */
function slot<T>(by: Map<string, T[]>, state: string, keyGroup: number, create: () => T): T {
  let groups = by.get(state);
  if (groups === undefined) by.set(state, (groups = []));
  let value = groups[keyGroup];
  if (value === undefined) groups[keyGroup] = value = create();
  return value;
}
