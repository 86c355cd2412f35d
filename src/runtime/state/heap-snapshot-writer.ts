/**
 * Writes one snapshot of a heap backend while processing goes on, as Flink's CopyOnWriteStateMap
 * does: the barrier only freezes what is to be written (the tables, and for a delta the logs of
 * keys changed since the last completed checkpoint); the values are then serialised key group by
 * key group, in chunks, with the event loop free between chunks. Every access to a key through a
 * state handle passes {@link HeapSnapshotWriter.copyKey} first (the backend calls it when the
 * current key changes, and before a TTL sweep removes a key): while the key's group has not been
 * written, its values as of the barrier are copied into the snapshot (a key created after the
 * barrier is recorded as absent), so the snapshot is exactly the state at the barrier whatever
 * processing does afterwards.
 *
 * Invariants: a key group is written once, in one go of chunks; a key whose group is written is
 * never copied; a key is copied at its first access after the barrier, so a copy is its value at
 * the barrier and takes precedence over the live value (a key removed and created again, which
 * the live map's iteration may visit again, has a copy). The writer does not remember which keys
 * it has emitted: a key emitted from the live map of the group being written and accessed
 * afterwards is copied too, and written again with the same value (its barrier value) at the
 * group's end — cheaper than a Set of every emitted key, and applying it twice restores the same.
 *
 * A list is copied as its array and its length: the heap backend's lists only grow in place and
 * their rows are immutable (ListState's contract), so the first `length` rows of the array are the
 * list at the barrier whatever is appended later (a list replaced or cleared leaves the old array
 * alone) — a key holding thousands of rows costs nothing to copy. A delta writes a list that only
 * grew since the checkpoint it builds on as its new rows (list-append-log.ts), and nothing for a
 * list that did not change.
 */
import type { Key } from '../../common/key-codec.js';
import { encodeStateFileHeader, type StateFileHeader } from './key-group-state-file.js';
import type { HeapStateTable } from './heap-state-table.js';
import { changedKeysOf, hasChangesIn, type ChangeLogs } from './key-change-log.js';
import { listChangeOf, REWRITTEN, type ListChanges } from './list-append-log.js';
import type { StateSnapshotWriter } from './snapshotting-state-backend.js';
import { SnapshotChunks, SnapshotPacer } from './snapshot-pacer.js';
import { SnapshotParts, streamSnapshot, writeSnapshotSync } from './snapshot-parts.js';
import { StateFrameCollector, type LastAccess } from './state-frame-collector.js';

/** A key that did not exist at the barrier, in a copy. */
const ABSENT: unique symbol = Symbol('absent');
type Copy = unknown;

/** Entries serialised between two turns of the event loop at most. */
export const SNAPSHOT_CHUNK_ENTRIES = 1 << 16;


const PENDING = 0;
const WRITING = 1;
const DONE = 2;

/** The snapshot of one subtask's keyed state being written. */
export class HeapSnapshotWriter implements StateSnapshotWriter {
  private readonly status: Uint8Array;
  /** Per key group not written yet: per table, the keys copied before an access (value or ABSENT). */
  private readonly copies = new Map<number, Map<Key, Copy>[]>();
  /** A delta, per key group not written yet: its changed keys without repeats, built from the logs when first needed. */
  private readonly changedKeys = new Map<number, Set<Key>>();
  private readonly groupsToWrite: number[];
  private readonly parts = new SnapshotParts();
  private finished = false;
  private aborted = false;
  private readonly work: SnapshotChunks;

  /**
   * @param tables the declared states at the barrier
   * @param kind `full`: every entry; `delta`: the entries of `changed` keys, and tombstones for those gone
   * @param changed for a delta, logs of changed keys per key group (several logs, and repeats within one: their union)
   * @param listChanges for a delta, per table: for a list state that logs its changes, the records of
   *   the epochs `changed` covers (list-append-log.ts); undefined for the others
   * @param now the time recorded as the last access of keys without one
   */
  constructor(
    private readonly tables: readonly HeapStateTable[],
    readonly kind: 'full' | 'delta',
    private readonly changed: readonly ChangeLogs[],
    private readonly listChanges: readonly (readonly ListChanges[] | undefined)[],
    maxParallelism: number,
    private readonly now: number,
    private readonly onDone: (writer: HeapSnapshotWriter) => void,
    private readonly chunkEntries = SNAPSHOT_CHUNK_ENTRIES,
  ) {
    this.status = new Uint8Array(maxParallelism).fill(DONE);
    this.groupsToWrite = [];
    for (let group = 0; group < maxParallelism && tables.length > 0; group++) {
      const used = kind === 'full' ? tables.some((t) => (t.groups[group]?.size ?? 0) > 0) : hasChangesIn(changed, group);
      if (!used) continue;
      this.groupsToWrite.push(group);
      this.status[group] = PENDING;
    }
    this.work = new SnapshotChunks(this.steps());
    if (this.groupsToWrite.length === 0) this.finish();
  }

  /** True when there is nothing to write: no entry (full) or no changed key (delta). */
  get empty(): boolean {
    return this.groupsToWrite.length === 0;
  }

  /** True once every group is written. */
  get done(): boolean {
    return this.finished;
  }

  /**
   * Called before `key` (of `keyGroup`) is accessed or removed: copies its values as of the barrier
   * when the snapshot still has to write them.
   */
  copyKey(key: Key, keyGroup: number): void {
    const status = this.status[keyGroup];
    if (status === DONE) return;
    if (this.kind === 'delta' && !this.isChanged(key, keyGroup)) return;
    let copies = this.copies.get(keyGroup);
    if (copies === undefined) this.copies.set(keyGroup, (copies = this.tables.map(() => new Map<Key, Copy>())));
    for (let t = 0; t < this.tables.length; t++) {
      const copy = copies[t]!;
      if (copy.has(key)) continue;
      const table = this.tables[t]!;
      const value = table.groups[keyGroup]?.get(key);
      if (value === undefined) copy.set(key, ABSENT);
      else if (table.kind === 'list') copy.set(key, new ListAtBarrier(value as readonly unknown[]));
      else copy.set(key, copyOf(value));
    }
  }

  private isChanged(key: Key, keyGroup: number): boolean {
    return this.changedIn(keyGroup).has(key);
  }

  /**
   * The changed keys of a key group of a delta, each once: one pass over the group's logs, at the
   * first access to one of its keys or when it is written, whichever comes first (so a set as large
   * as a key group's changes, not as the whole epoch's, and only while the group waits).
   */
  private changedIn(keyGroup: number): Set<Key> {
    let keys = this.changedKeys.get(keyGroup);
    if (keys === undefined) this.changedKeys.set(keyGroup, (keys = changedKeysOf(this.changed, keyGroup)));
    return keys;
  }

  /** Writes one chunk (at most `chunkEntries` entries, about a time slice: snapshot-pacer.ts); returns true once everything is written. */
  step(): boolean {
    if (this.aborted) throw new Error('the snapshot was abandoned');
    return this.work.step();
  }

  /** True once a step failed: every later step throws that error again. */
  get failed(): boolean {
    return this.work.failed;
  }

  /** Abandons the snapshot (its file is not written): the copies are dropped and the backend stops copying keys for it. */
  abort(): void {
    if (this.finished) return;
    this.aborted = true;
    this.finish();
  }

  stream(): AsyncGenerator<readonly Uint8Array[], void, undefined> {
    return streamSnapshot(this, this.parts);
  }

  writeSync(): Uint8Array {
    return writeSnapshotSync(this, this.parts);
  }

  /** Bytes of the parts produced so far (all of them once done). */
  get byteLength(): number {
    return this.parts.byteLength;
  }

  get appendedBytes(): number {
    return this.parts.appendedBytes;
  }

  /** The chunks of work: each `yield` is a point where processing may run. */
  private *steps(): Generator<void> {
    const header: StateFileHeader = { kind: this.kind, tables: this.tables.map((t) => [t.name, t.kind] as const) };
    this.push(encodeStateFileHeader(header));
    const pacer = new SnapshotPacer(this.chunkEntries);
    for (const group of this.groupsToWrite) {
      this.status[group] = WRITING;
      const out = this.framesOf(group);
      if (this.kind === 'full') {
        for (let t = 0; t < this.tables.length; t++) {
          const live = this.tables[t]!.groups[group];
          if (live === undefined) continue;
          let copied = this.copies.get(group)?.[t];
          for (const [key, value] of live) {
            // A copied key is written from its copy below (a key removed and created again while
            // this loop was paused, which the Map's iteration visits again, is one).
            if (copied !== undefined && copied.has(key)) continue;
            out.entry(t, key, value);
            if (pacer.entryWritten()) {
              yield* pacer.pause(() => out.flush());
              copied = this.copies.get(group)?.[t];
            }
          }
        }
        const copies = this.copies.get(group);
        if (copies !== undefined) copies.forEach((copy, t) => copy.forEach((value, key) => value !== ABSENT && out.entry(t, key, valueOf(value))));
      } else {
        for (const key of this.changedIn(group)) {
          const copies = this.copies.get(group);
          for (let t = 0; t < this.tables.length; t++) {
            const copy = copies?.[t];
            const stored = copy !== undefined && copy.has(key) ? copy.get(key) : this.tables[t]!.groups[group]?.get(key);
            const value = stored === ABSENT ? undefined : stored;
            const listChanges = this.listChanges[t];
            if (listChanges !== undefined) {
              const base = listChangeOf(listChanges, key);
              // The list is the one the checkpoint before had (only selected, or another state's key).
              if (base === undefined) continue;
              if (base !== REWRITTEN && value !== undefined) {
                const list = value instanceof ListAtBarrier ? value : new ListAtBarrier(value as readonly unknown[]);
                if (list.length > base) {
                  out.append(t, key, base, list.rows.slice(base, list.length));
                  continue;
                }
              }
            }
            if (value === undefined) out.tombstone(t, key);
            else out.entry(t, key, valueOf(value));
          }
          if (pacer.entryWritten()) yield* pacer.pause(() => out.flush());
        }
      }
      out.flush();
      this.status[group] = DONE;
      this.copies.delete(group);
      this.changedKeys.delete(group);
    }
    this.finish();
  }

  /** The frames of a key group, with the last access of entries of states that have a time-to-live (keys without one: the snapshot's time). */
  private framesOf(group: number): StateFrameCollector {
    const lastAccess = this.tables.map((table): LastAccess | undefined => {
      const accessed = table.accessed;
      return accessed === undefined ? undefined : (key) => accessed[group]?.get(key) ?? this.now;
    });
    return new StateFrameCollector((part, appended) => this.parts.push(part, appended), group, lastAccess);
  }

  private push(part: Uint8Array): void {
    this.parts.push(part);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.copies.clear();
    this.changedKeys.clear();
    this.onDone(this);
  }
}

/** A list as it was at the barrier: the first `length` rows of its array (see the module comment). */
class ListAtBarrier {
  readonly length: number;

  constructor(readonly rows: readonly unknown[]) {
    this.length = rows.length;
  }

  /** The list's rows at the barrier (its array itself while nothing was appended). */
  get value(): readonly unknown[] {
    return this.rows.length === this.length ? this.rows : this.rows.slice(0, this.length);
  }
}

/** The value a copy stands for. */
function valueOf(copy: Copy): unknown {
  return copy instanceof ListAtBarrier ? copy.value : copy;
}

/**
 * A copy of a state value that later changes cannot reach: arrays and Maps over primitives (a
 * GROUP BY's accumulators, map state), nested a few levels, by
 * hand; anything else with the structured clone algorithm — the one V8's serialiser uses, so the
 * copy serialises as the original would have. Shared with the disk backend's copy-on-access.
 */
export function copyOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return plainCopy(value, PLAIN_COPY_DEPTH) ?? structuredClone(value);
}

/** Levels of arrays and Maps below a value that {@link plainCopy} copies (a Map of rows holding arrays is three). */
const PLAIN_COPY_DEPTH = 3;

/**
 * A deep copy of arrays and Maps (with primitive keys) nested at most `depth` levels below
 * `value` over primitives; undefined when the value holds anything else.
 */
function plainCopy(value: object, depth: number): object | undefined {
  if (Array.isArray(value)) {
    const copy: unknown[] = value.slice();
    for (let i = 0; i < copy.length; i++) {
      const element: unknown = copy[i];
      if (typeof element !== 'object' || element === null) continue;
      const inner = depth === 0 ? undefined : plainCopy(element, depth - 1);
      if (inner === undefined) return undefined;
      copy[i] = inner;
    }
    return copy;
  }
  if (value instanceof Map) {
    const copy = new Map<unknown, unknown>();
    for (const [key, element] of value as Map<unknown, unknown>) {
      if (typeof key === 'object' && key !== null) return undefined;
      if (typeof element !== 'object' || element === null) {
        copy.set(key, element);
        continue;
      }
      const inner = depth === 0 ? undefined : plainCopy(element, depth - 1);
      if (inner === undefined) return undefined;
      copy.set(key, inner);
    }
    return copy;
  }
  return undefined;
}
