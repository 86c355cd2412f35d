/**
 * The keys a keyed state backend has selected since its last completed checkpoint, per key group,
 * for incremental (delta) checkpoints. Selecting a key is how every access through a state handle
 * starts, so these are a superset of the keys read or written.
 *
 * Keys are logged, not collected in a set: a selection appends the key to its key group's log of
 * the current epoch (the time since the last barrier) unless a small direct-mapped filter — slots
 * indexed by bits of the key's hash that the key group does not use — shows it was logged since
 * the barrier, so a key selected again soon costs one comparison. A log may hold a key more than
 * once (two keys alternating in one filter slot); {@link changedKeysOf} removes the repeats of one
 * key group when a snapshot needs them. A set of every changed key cost a hash-table insert into a
 * structure as large as the epoch's changes on every selection, and its cache misses slowed the
 * state accesses around it.
 *
 * At a checkpoint's barrier the epoch's logs are frozen for that checkpoint; they are forgotten
 * once it, or a later checkpoint, completes. The logs of a checkpoint that has not completed
 * (failed, declined, or still being written) belong to every later delta until one completes.
 */
import { hashKeyBits, type Key } from '../../common/key-codec.js';

/** Keys selected in one epoch, per key group, in selection order; a key may appear more than once. */
export type ChangeLogs = readonly (readonly Key[] | undefined)[];

/** Slots of the filter of keys logged since the barrier (a power of two). */
const FILTER_SLOTS = 4096;

/** What a filter slot holds before any key is logged into it. */
const NOT_LOGGED: unique symbol = Symbol('not logged');

/** The filter slot of a key, from bits of its hash that key groups (up to 2^12 of them, by the low bits) leave alone. */
const filterSlot = (hash: number): number => (hash >>> 12) & (FILTER_SLOTS - 1);

/** One epoch's logs frozen for the checkpoint at its end. */
interface FrozenEpoch {
  readonly checkpointId: number;
  readonly logs: ChangeLogs;
}

/** The change logs of one backend (see the module comment). */
export class KeyChangeLog {
  private logs: (Key[] | undefined)[];
  private readonly logged = new Array<Key | typeof NOT_LOGGED>(FILTER_SLOTS);
  private frozen: FrozenEpoch[] = [];

  /** @param current the backend's current key and its key group, logged for the first epoch */
  constructor(
    private readonly maxParallelism: number,
    current: Key,
    currentGroup: number,
  ) {
    this.logs = this.newEpoch(current, currentGroup);
  }

  /** The backend selected `key` (of key group `keyGroup`, whose {@link hashKeyBits} are `hash`). */
  selected(key: Key, hash: number, keyGroup: number): void {
    const at = filterSlot(hash);
    if (this.logged[at] === key) return;
    this.logged[at] = key;
    (this.logs[keyGroup] ??= []).push(key);
  }

  /** `key` changes without being selected (a time-to-live sweep removes it). */
  changedUnselected(key: Key, keyGroup: number): void {
    (this.logs[keyGroup] ??= []).push(key);
  }

  /**
   * The barrier of checkpoint `checkpointId`: the epoch's logs are frozen for it and a new epoch
   * begins with the current key logged (handles may touch it without selecting it again).
   */
  freeze(checkpointId: number, current: Key, currentGroup: number): void {
    this.frozen.push({ checkpointId, logs: this.logs });
    this.logs = this.newEpoch(current, currentGroup);
  }

  /** The logs a delta snapshot writes: those of every checkpoint frozen and not yet completed. */
  pending(): ChangeLogs[] {
    return this.frozen.map((epoch) => epoch.logs);
  }

  /** Checkpoint `checkpointId` completed: its logs and those of earlier checkpoints are forgotten. */
  completed(checkpointId: number): void {
    this.frozen = this.frozen.filter((epoch) => epoch.checkpointId > checkpointId);
  }

  private newEpoch(current: Key, currentGroup: number): (Key[] | undefined)[] {
    const logs = new Array<Key[] | undefined>(this.maxParallelism).fill(undefined);
    logs[currentGroup] = [current];
    this.logged.fill(NOT_LOGGED);
    this.logged[filterSlot(hashKeyBits(current))] = current;
    return logs;
  }
}

/** True when some log of some epoch has a key of `keyGroup`. */
export function hasChangesIn(epochs: readonly ChangeLogs[], keyGroup: number): boolean {
  return epochs.some((logs) => (logs[keyGroup]?.length ?? 0) > 0);
}

/** The keys of `keyGroup` in any of the epochs' logs, each once, in first-logged order. */
export function changedKeysOf(epochs: readonly ChangeLogs[], keyGroup: number): Set<Key> {
  const keys = new Set<Key>();
  for (const logs of epochs) {
    const log = logs[keyGroup];
    if (log !== undefined) for (let i = 0; i < log.length; i++) keys.add(log[i]!);
  }
  return keys;
}
