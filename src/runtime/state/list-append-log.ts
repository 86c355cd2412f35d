/**
 * How the lists of one list state changed since the last completed checkpoint, per key, so that a
 * delta checkpoint writes a list that only grew as the rows appended since (Flink's RocksDB
 * backend gets the same from its merge operator): a join keeps tens of thousands of rows under a
 * common key, and rewriting all of them for every new one made checkpoint cost follow the state,
 * not the change.
 *
 * Per epoch (the time between two barriers, as in key-change-log.ts), a key's first change records
 * either the length its list had before rows were appended to it, or {@link REWRITTEN} when it was
 * replaced or cleared; a later rewrite in the epoch overrides an append, a later append keeps what
 * was recorded. Rows in a list are immutable once added (ListState's contract), so the first
 * `base` rows of a list that was only appended to are those it had at the last completed
 * checkpoint, and a delta needs only the rest. A key that is in no log of the pending epochs has
 * the list it had at that checkpoint: a delta writes nothing for it.
 */
import type { Key } from '../../common/key-codec.js';

/** What a log records for a list replaced or cleared (not only appended to) in its epoch. */
export const REWRITTEN = -1;

/** One epoch's record: per changed key, the length of its list before the epoch's appends, or {@link REWRITTEN}. */
export type ListChanges = ReadonlyMap<Key, number>;

/** The log of one list state (see the module comment). */
export class ListAppendLog {
  private current = new Map<Key, number>();
  private frozen: { readonly checkpointId: number; readonly changes: ListChanges }[] = [];

  /** Rows are about to be appended to `key`'s list, which holds `length` rows. */
  appending(key: Key, length: number): void {
    const current = this.current;
    if (!current.has(key)) current.set(key, length);
  }

  /** `key`'s list is replaced or cleared. */
  rewritten(key: Key): void {
    this.current.set(key, REWRITTEN);
  }

  /** The barrier of checkpoint `checkpointId`: the epoch's record is frozen for it and a new epoch begins. */
  freeze(checkpointId: number): void {
    this.frozen.push({ checkpointId, changes: this.current });
    this.current = new Map();
  }

  /** The records a delta snapshot reads: those of every checkpoint frozen and not yet completed, oldest first. */
  pending(): ListChanges[] {
    return this.frozen.map((epoch) => epoch.changes);
  }

  /** Checkpoint `checkpointId` completed: its records and those of earlier checkpoints are forgotten. */
  completed(checkpointId: number): void {
    this.frozen = this.frozen.filter((epoch) => epoch.checkpointId > checkpointId);
  }
}

/**
 * How `key`'s list changed over the epochs (oldest first): undefined when it did not, {@link
 * REWRITTEN} when it was replaced or cleared in any of them, else the length it had before the
 * first of them (every change since was an append).
 */
export function listChangeOf(epochs: readonly ListChanges[], key: Key): number | undefined {
  let base: number | undefined;
  for (const changes of epochs) {
    const change = changes.get(key);
    if (change === undefined) continue;
    if (change === REWRITTEN) return REWRITTEN;
    base ??= change;
  }
  return base;
}

/**
 * `list` (an array a restore owns) cut to its first `base` rows, then `rows` appended: the list a
 * delta's appended rows make, changed in place.
 */
export function appendRows(list: unknown[], base: number, rows: readonly unknown[]): unknown[] {
  if (list.length > base) list.length = base;
  for (let i = 0; i < rows.length; i++) list.push(rows[i]);
  return list;
}

/** The error of a delta whose appended rows follow more rows of a list than the files before it hold. */
export function notFollowing(source: string, state: string, key: Key, base: number, held: number): Error {
  return new Error(`state file ${source} does not follow the files before it: it appends to the list of key ${String(key)} of state '${state}' after ${base} rows, but they hold ${held}`);
}
