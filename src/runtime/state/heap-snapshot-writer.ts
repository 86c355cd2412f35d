/**
 * Writes one snapshot of a heap backend while processing goes on, as Flink's CopyOnWriteStateMap
 * does: the barrier only freezes what is to be written (the tables, and for a delta the sets of
 * keys changed since the last completed checkpoint); the values are then serialised key group by
 * key group, in chunks, with the event loop free between chunks. Every access to a key through a
 * state handle passes {@link HeapSnapshotWriter.copyKey} first (the backend calls it when the
 * current key changes, and before a TTL sweep removes a key): while the key's group has not been
 * written, its values as of the barrier are copied into the snapshot (a key created after the
 * barrier is recorded as absent), so the snapshot is exactly the state at the barrier whatever
 * processing does afterwards.
 *
 * Invariants: a key group is written once, in one go of chunks; a key whose group is written is
 * never copied; a key emitted from the live map is never copied nor emitted again afterwards (its
 * later changes, even a removal and re-creation, are not this snapshot's); a copy takes precedence
 * over the live value.
 */
import type { Key } from '../../common/key-codec.js';
import { encodeStateFileHeader, encodeStateFrame, type StateFileHeader } from './key-group-state-file.js';
import type { HeapStateTable } from './heap-state-table.js';
import { encodeEntries } from './state-table-codec.js';

/** A key that did not exist at the barrier, in a copy. */
const ABSENT: unique symbol = Symbol('absent');
type Copy = unknown;

/** Entries serialised between two turns of the event loop at most. */
export const SNAPSHOT_CHUNK_ENTRIES = 1 << 16;

/**
 * Milliseconds a chunk runs (checked every 256 entries) at least: the writer takes as much time
 * as processing took since its previous chunk (a fair half of the thread, so that a large state is
 * written in seconds however long the turns of processing are), at least this and at most
 * {@link SNAPSHOT_MAX_SLICE_MS}, so that processing is never held up for long.
 */
export const SNAPSHOT_SLICE_MS = 4;

/** Milliseconds a chunk runs at most. */
export const SNAPSHOT_MAX_SLICE_MS = 20;

const PENDING = 0;
const WRITING = 1;
const DONE = 2;

/** The snapshot of one subtask's keyed state being written. */
export class HeapSnapshotWriter {
  private readonly status: Uint8Array;
  /** Per key group not written yet: per table, the keys copied before an access (value or ABSENT). */
  private readonly copies = new Map<number, Map<Key, Copy>[]>();
  /** Keys of the group being written that are already emitted: per table (full), or one set (delta). */
  private readonly emitted: Set<Key>[];
  private readonly groupsToWrite: number[];
  private readonly parts: Uint8Array[] = [];
  private bytes = 0;
  private finished = false;
  private readonly work: Generator<void>;

  /**
   * @param tables the declared states at the barrier
   * @param kind `full`: every entry; `delta`: the entries of `changed` keys, and tombstones for those gone
   * @param changed for a delta, sets of changed keys per key group (several sets: their union)
   * @param now the time recorded as the last access of keys without one
   */
  constructor(
    private readonly tables: readonly HeapStateTable[],
    readonly kind: 'full' | 'delta',
    private readonly changed: readonly (readonly (Set<Key> | undefined)[])[],
    maxParallelism: number,
    private readonly now: number,
    private readonly onDone: (writer: HeapSnapshotWriter) => void,
    private readonly chunkEntries = SNAPSHOT_CHUNK_ENTRIES,
  ) {
    this.status = new Uint8Array(maxParallelism).fill(DONE);
    this.groupsToWrite = [];
    for (let group = 0; group < maxParallelism && tables.length > 0; group++) {
      const used = kind === 'full' ? tables.some((t) => (t.groups[group]?.size ?? 0) > 0) : changed.some((sets) => (sets[group]?.size ?? 0) > 0);
      if (!used) continue;
      this.groupsToWrite.push(group);
      this.status[group] = PENDING;
    }
    this.emitted = kind === 'full' ? tables.map(() => new Set<Key>()) : [new Set<Key>()];
    this.work = this.steps();
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
      if (status === WRITING && this.emitted[this.kind === 'full' ? t : 0]!.has(key)) continue;
      const value = this.tables[t]!.groups[keyGroup]?.get(key);
      copy.set(key, value === undefined ? ABSENT : copyOf(value));
    }
  }

  private isChanged(key: Key, keyGroup: number): boolean {
    for (const sets of this.changed) if (sets[keyGroup]?.has(key) === true) return true;
    return false;
  }

  /** Writes one chunk (at most `chunkEntries` entries, about {@link SNAPSHOT_SLICE_MS}); returns true once everything is written. */
  step(): boolean {
    return this.work.next().done === true;
  }

  /** Writes everything, yielding to the event loop between chunks; resolves with the file's parts (header first). */
  async write(): Promise<Uint8Array[]> {
    while (!this.step()) await new Promise<void>((resolve) => setImmediate(resolve));
    return this.parts;
  }

  /** Writes what is left at once (tests and tools); returns the file's bytes. */
  writeSync(): Uint8Array {
    while (!this.step());
    return Buffer.concat(this.parts);
  }

  /** Bytes of the parts produced so far (all of them once done). */
  get byteLength(): number {
    return this.bytes;
  }

  /** The chunks of work: each `yield` is a point where processing may run. */
  private *steps(): Generator<void> {
    const header: StateFileHeader = { kind: this.kind, tables: this.tables.map((t) => [t.name, t.kind] as const) };
    this.push(encodeStateFileHeader(header));
    let count = 0;
    let deadline = performance.now() + SNAPSHOT_SLICE_MS;
    const chunkDone = (): boolean => ++count >= this.chunkEntries || ((count & 255) === 0 && performance.now() >= deadline);
    // Ends a chunk: its frames written, processing runs, and the next slice lasts as long as
    // processing did (within the bounds).
    function* pause(out: GroupFrames): Generator<void> {
      out.flush();
      const yieldedAt = performance.now();
      yield;
      const resumedAt = performance.now();
      count = 0;
      deadline = resumedAt + Math.min(SNAPSHOT_MAX_SLICE_MS, Math.max(SNAPSHOT_SLICE_MS, resumedAt - yieldedAt));
    }
    for (const group of this.groupsToWrite) {
      this.status[group] = WRITING;
      const out = new GroupFrames(this, group, this.tables.length);
      if (this.kind === 'full') {
        for (let t = 0; t < this.tables.length; t++) {
          const live = this.tables[t]!.groups[group];
          if (live === undefined) continue;
          const emitted = this.emitted[t]!;
          for (const [key, value] of live) {
            if (this.copies.get(group)?.[t]!.has(key) === true) continue;
            // A key removed and created again while this loop was paused comes round again in
            // the Map's iteration: its value then is not the barrier's (that one was emitted).
            const before = emitted.size;
            if (emitted.add(key).size === before) continue;
            out.entry(t, key, value);
            if (chunkDone()) yield* pause(out);
          }
        }
        const copies = this.copies.get(group);
        if (copies !== undefined) copies.forEach((copy, t) => copy.forEach((value, key) => value !== ABSENT && out.entry(t, key, value)));
      } else {
        const emitted = this.emitted[0]!;
        for (const sets of this.changed) {
          const keys = sets[group];
          if (keys === undefined) continue;
          for (const key of keys) {
            if (emitted.has(key)) continue;
            emitted.add(key);
            const copies = this.copies.get(group);
            for (let t = 0; t < this.tables.length; t++) {
              const copy = copies?.[t]!;
              const value = copy !== undefined && copy.has(key) ? copy.get(key) : this.tables[t]!.groups[group]?.get(key);
              if (value === undefined || value === ABSENT) out.tombstone(t, key);
              else out.entry(t, key, value);
            }
            if (chunkDone()) yield* pause(out);
          }
        }
      }
      out.flush();
      this.status[group] = DONE;
      this.copies.delete(group);
      for (const emitted of this.emitted) emitted.clear();
    }
    this.finish();
  }

  /** @internal GroupFrames */
  lastAccess(table: number, group: number, key: Key): number {
    return this.tables[table]!.accessed?.[group]?.get(key) ?? this.now;
  }

  /** @internal GroupFrames */
  hasTtl(table: number): boolean {
    return this.tables[table]!.accessed !== undefined;
  }

  /** @internal GroupFrames */
  push(part: Uint8Array): void {
    this.parts.push(part);
    this.bytes += part.byteLength;
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.copies.clear();
    this.onDone(this);
  }
}

/** The entries and tombstones of one key group collected for the next frames, one frame per table. */
class GroupFrames {
  private entries: Map<Key, unknown>[];
  private tombstones: Key[][];
  private accessed: number[][];

  constructor(
    private readonly writer: HeapSnapshotWriter,
    private readonly group: number,
    private readonly tables: number,
  ) {
    this.entries = [];
    this.tombstones = [];
    this.accessed = [];
    this.reset();
  }

  private reset(): void {
    this.entries = Array.from({ length: this.tables }, () => new Map<Key, unknown>());
    this.tombstones = Array.from({ length: this.tables }, () => []);
    this.accessed = Array.from({ length: this.tables }, () => []);
  }

  entry(table: number, key: Key, value: unknown): void {
    this.entries[table]!.set(key, value);
    if (this.writer.hasTtl(table)) this.accessed[table]!.push(this.writer.lastAccess(table, this.group, key));
  }

  tombstone(table: number, key: Key): void {
    this.tombstones[table]!.push(key);
  }

  /** Serialises what was collected, a frame per table that has any. */
  flush(): void {
    for (let t = 0; t < this.tables; t++) {
      const entries = this.entries[t]!;
      const tombstones = this.tombstones[t]!;
      if (entries.size === 0 && tombstones.length === 0) continue;
      const accessed = this.writer.hasTtl(t) ? Float64Array.from(this.accessed[t]!) : undefined;
      this.writer.push(encodeStateFrame({ keyGroup: this.group, table: t, entries: entries.size === 0 ? entries : encodeEntries(entries), tombstones, accessed }));
    }
    this.reset();
  }
}

/**
 * A copy of a state value that later changes cannot reach: arrays of primitives (a GROUP BY's
 * accumulators) shallowly, anything else with the structured clone algorithm — the one V8's
 * serialiser uses, so the copy serialises as the original would have.
 */
function copyOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let flat = true;
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (typeof element === 'object' && element !== null) {
        flat = false;
        break;
      }
    }
    if (flat) return value.slice();
  }
  return structuredClone(value);
}
