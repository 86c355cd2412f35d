/**
 * The in-memory (`hashmap`) keyed state backend. Each declared state keeps one Map per key group
 * (heap-state-table.ts), so no Map size limit caps a subtask's keys; the key group of the current
 * key is computed once per change of key.
 *
 * Snapshots are asynchronous and copy-on-access (heap-snapshot-writer.ts): {@link beginSnapshot}
 * is the synchronous part — it freezes the declared states and, for a checkpoint, the keys changed
 * since the previous one — and costs nothing proportional to the state; the writer then
 * serialises in chunks while processing goes on. With change tracking on (incremental
 * checkpoints), the backend remembers per key group every key selected since the last completed
 * checkpoint (selecting a key is how every access through a state handle starts, so a superset of
 * the keys read or written), and a `delta` snapshot writes only those keys — their values, or
 * tombstones for the ones gone; of a list state, only the lists that changed, a list that only
 * grew as its new rows (list-append-log.ts). The keys of a checkpoint that has not completed
 * (failed, declined, or still being written) stay in every later delta until a checkpoint
 * completes (key-change-log.ts).
 *
 * With a time-to-live (Flink's `table.exec.state.ttl`), the state of a key that has been neither
 * read nor written for that long (processing time) is dropped: it is never returned once expired,
 * and it is removed when touched, as the oldest keys are swept on later accesses, and before a
 * snapshot. The granularity is a key of one declared state (Flink expires each map entry or list
 * element on its own, and refreshes on writes only; on this backend, which hands out its stored
 * objects (`sharesValues`), an operator may change a value it read in place, so a read counts as
 * a write).
 */
import { hashKeyBits, keyGroupOf, keyGroupOfHash, type Key } from '../../common/key-codec.js';
import { KeyChangeLog } from './key-change-log.js';
import { appendRows, notFollowing } from './list-append-log.js';
import { HeapSnapshotWriter, SNAPSHOT_CHUNK_ENTRIES } from './heap-snapshot-writer.js';
import { KEYS_PER_SNAPSHOT_CHUNK, stepFromProcessing } from './snapshot-pacer.js';
import { HeapStateTable } from './heap-state-table.js';
import { isFramedStateFile, readStateFile, type StateKind } from './key-group-state-file.js';
import { deserializeOwning } from './owning-deserializer.js';
import { forEachDecodedEntry, type EncodedEntries } from './state-table-codec.js';
import type { ListState, MapState, ReducingState, StateDescriptor, ValueState } from './keyed-state-backend.js';
import type { RemovedKeys, SnapshotRequest, SnapshottingStateBackend } from './snapshotting-state-backend.js';

export type { SnapshotRequest } from './snapshotting-state-backend.js';

export { HeapStateTable as StateTable } from './heap-state-table.js';

/** The default number of key groups (`pipeline.max-parallelism`). */
const DEFAULT_MAX_PARALLELISM = 128;


/** How a backend expires state. */
export interface StateTtlOptions {
  /** Idle time after which a key's state is dropped, in milliseconds. */
  readonly ttlMillis: number;
  /** Processing time in epoch milliseconds (the wall clock unless a test drives time). */
  readonly clock?: () => number;
}

/** How a heap backend is set up. */
export interface MemoryStateBackendOptions {
  /** Key groups (`pipeline.max-parallelism`); 128 by default. */
  readonly maxParallelism?: number;
  /** Remember the keys changed since the last completed checkpoint, so that checkpoints can be deltas. */
  readonly trackChanges?: boolean;
  readonly ttl?: StateTtlOptions;
  /** Entries a snapshot serialises between two turns of the event loop (tests make it small). */
  readonly snapshotChunkEntries?: number;
}


/** Keyed state held in memory. */
export class MemoryStateBackend implements SnapshottingStateBackend {
  private currentKey: Key = null;
  /** The key group of the current key. */
  private slot: number;
  private readonly tables = new Map<string, HeapStateTable>();
  private readonly maxParallelism: number;
  private readonly chunkEntries: number;
  private readonly ttlMillis: number | undefined;
  private readonly clock: () => number;
  private lastSweep = -Infinity;
  /** The keys selected since the last completed checkpoint; undefined without change tracking. */
  private readonly changes: KeyChangeLog | undefined;
  /** Snapshots being written. */
  private writers: HeapSnapshotWriter[] = [];
  /** Key changes since a snapshot chunk was last written from processing (see writeChunk). */
  private keysSinceChunk = 0;

  constructor(options: MemoryStateBackendOptions | StateTtlOptions = {}) {
    const { ttl, maxParallelism = DEFAULT_MAX_PARALLELISM, trackChanges = false, snapshotChunkEntries = SNAPSHOT_CHUNK_ENTRIES }: MemoryStateBackendOptions = 'ttlMillis' in options ? { ttl: options } : options;
    if (!Number.isSafeInteger(snapshotChunkEntries) || snapshotChunkEntries < 1) throw new Error(`snapshot chunks must hold at least one entry, got ${snapshotChunkEntries}`);
    this.chunkEntries = snapshotChunkEntries;
    if (ttl !== undefined && !(ttl.ttlMillis > 0)) throw new Error(`state ttl must be positive, got ${ttl.ttlMillis}`);
    if (!Number.isSafeInteger(maxParallelism) || maxParallelism < 1) throw new Error(`max parallelism must be a positive whole number, got ${maxParallelism}`);
    this.maxParallelism = maxParallelism;
    this.ttlMillis = ttl?.ttlMillis;
    this.clock = ttl?.clock ?? Date.now;
    this.slot = keyGroupOf(null, maxParallelism);
    if (trackChanges) this.changes = new KeyChangeLog(maxParallelism, this.currentKey, this.slot);
  }

  /** The heap backend hands out its stored objects (see KeyedStateBackend.sharesValues). */
  get sharesValues(): boolean {
    return true;
  }

  setCurrentKey(key: Key): void {
    if (key === this.currentKey) return;
    this.currentKey = key;
    const hash = hashKeyBits(key);
    const slot = (this.slot = keyGroupOfHash(hash, this.maxParallelism));
    this.changes?.selected(key, hash, slot);
    if (this.writers.length > 0) {
      for (const writer of this.writers) writer.copyKey(key, slot);
      if (++this.keysSinceChunk >= KEYS_PER_SNAPSHOT_CHUNK) this.writeChunk();
    }
  }

  /**
   * Writes a chunk of the oldest snapshot being written, between two keys of processing: the
   * writer's own turns of the event loop come only between turns of processing, which may last
   * hundreds of milliseconds, and every key accessed while a snapshot is pending is copied first —
   * so a snapshot that also advances with processing spends less time pending and copies fewer
   * keys. Safe at any key change: every key accessed since the barrier whose group is not written
   * has its copy. A failure is the writer's (it rethrows it to its stream, which declines the
   * checkpoint), not processing's.
   */
  private writeChunk(): void {
    this.keysSinceChunk = 0;
    stepFromProcessing(this.writers[0]!);
  }

  getCurrentKey(): Key {
    return this.currentKey;
  }

  /** The declared states, for snapshots and metrics. */
  states(): IterableIterator<HeapStateTable> {
    return this.tables.values();
  }

  /** True when the backend remembers changed keys (incremental checkpoints). */
  get tracksChanges(): boolean {
    return this.changes !== undefined;
  }

  /**
   * The synchronous part of a snapshot: freezes what it writes and returns its writer, which
   * serialises asynchronously (see the file's doc); processing may go on meanwhile. A `delta`
   * needs change tracking. O(key groups), whatever the state's size (plus the expired keys a TTL
   * sweep drops).
   */
  beginSnapshot(request: SnapshotRequest): HeapSnapshotWriter {
    if (request.kind === 'delta' && this.changes === undefined) throw new Error('a delta snapshot needs a state backend that tracks changes');
    this.sweep(true);
    if (request.checkpointId !== undefined) this.changes?.freeze(request.checkpointId, this.currentKey, this.slot);
    const changes = request.kind === 'delta' ? this.changes!.pending() : [];
    const tables = [...this.tables.values()];
    if (request.checkpointId !== undefined) for (const table of tables) table.appends?.freeze(request.checkpointId);
    const listChanges = tables.map((table) => (request.kind === 'delta' ? table.appends?.pending() : undefined));
    const writer = new HeapSnapshotWriter(tables, request.kind, changes, listChanges, this.maxParallelism, this.clock(), (done) => {
      this.writers = this.writers.filter((w) => w !== done);
    }, this.chunkEntries);
    if (!writer.done) {
      this.writers.push(writer);
      writer.copyKey(this.currentKey, this.slot);
    }
    return writer;
  }

  /** Checkpoint `checkpointId` is complete: the changes it (and earlier ones) covered are forgotten. */
  notifyCheckpointComplete(checkpointId: number): void {
    this.changes?.completed(checkpointId);
    for (const table of this.tables.values()) table.appends?.completed(checkpointId);
  }

  /**
   * A full snapshot serialised at once into one buffer (tests and tools); undefined when there is
   * no keyed state at all. Change tracking is left alone.
   */
  snapshot(): Uint8Array | undefined {
    const writer = this.beginSnapshot({ kind: 'full' });
    return writer.empty ? undefined : writer.writeSync();
  }

  /**
   * Applies a state file (a full snapshot, a delta on top of what was applied before it, or a
   * single-buffer snapshot of an older weir), keeping only the keys `owns` accepts.
   */
  restore(snapshot: Uint8Array, owns: (key: Key) => boolean = () => true, source = 'snapshot'): void {
    this.apply(snapshot, source, () => true, owns);
  }

  /**
   * Applies a state file keeping only the key groups `ownsGroup` accepts: the frames of other
   * groups are skipped undecoded (an older single-buffer snapshot is decoded whole and filtered
   * key by key).
   */
  restoreKeyGroups(snapshot: Uint8Array, ownsGroup: (keyGroup: number) => boolean, source = 'snapshot', newer?: RemovedKeys): void {
    this.apply(snapshot, source, ownsGroup, undefined, newer);
  }

  /** The heap backend applies a chain newest first: the entries newer files replaced are never decoded (see RemovedKeys). */
  get restoresNewestFirst(): boolean {
    return true;
  }

  private apply(data: Uint8Array, source: string, ownsGroup: (keyGroup: number) => boolean, owns: ((key: Key) => boolean) | undefined, newer?: RemovedKeys): void {
    const now = this.clock();
    const touched = new Set<HeapStateTable>();
    // Chains are restored by key group only (restoreKeyGroups): never with a filter of keys.
    if (newer !== undefined && owns !== undefined) throw new Error('a chain applied newest first takes no filter of keys');
    if (!isFramedStateFile(data)) {
      if (newer !== undefined) throw new Error(`state file ${source} is not framed by key group; only framed files form chains`);
      this.applyUnframed(data, ownsGroup, owns, now, touched);
    } else {
      const order = newer === undefined ? 'forward' : 'backward';
      readStateFile(data, source, ownsGroup, (header, frame) => {
        const [name, kind] = header.tables[frame.table]!;
        const table = this.tableOf({ name }, kind);
        touched.add(table);
        const map = table.group(frame.keyGroup);
        const accessed = table.accessed === undefined ? undefined : table.accessedIn(frame.keyGroup);
        // An entry's last access, for a state with a time-to-live: recorded, or the restore's time (appended rows).
        const add = (key: Key, value: unknown, index?: number): void => {
          map.set(key, value);
          if (accessed !== undefined) {
            accessed.delete(key);
            accessed.set(key, (index === undefined ? undefined : frame.accessed?.[index]) ?? now);
          }
        };
        const appends = frame.appends;
        if (newer === undefined) {
          const skip = owns === undefined ? undefined : (key: Key): boolean => !owns(key);
          forEachDecodedEntry(frame.entries, add, skip);
          if (appends !== undefined) {
            forEachDecodedEntry(appends.entries, (key, rows, index) => {
              const list = map.get(key) as unknown[] | undefined;
              const base = appends.bases[index]!;
              if ((list?.length ?? 0) < base) throw notFollowing(source, name, key, base, list?.length ?? 0);
              add(key, list === undefined ? rows : appendRows(list, base, rows as unknown[]));
            }, skip);
          }
          for (const key of frame.tombstones) {
            map.delete(key);
            accessed?.delete(key);
          }
          return;
        }
        // Newest first: a key set or removed by a newer file (or an entry later in this one) is
        // decided. The newest file decides all its keys (a key a full file writes twice has its
        // barrier value both times), so its entries need no check. A list a newer file appended
        // to is decided once an older file gives its first rows (`prefixes`: how many it still needs).
        const removed = newer.of(name, frame.keyGroup);
        const prefixes = newer.listPrefixes(name, frame.keyGroup);
        const decided = (key: Key): boolean => (map.has(key) && !(prefixes.size > 0 && prefixes.has(key))) || (removed.size > 0 && removed.has(key));
        const skip = newer.newest ? undefined : decided;
        for (const key of frame.tombstones) {
          if (prefixes.size > 0 && prefixes.has(key)) throw notFollowing(source, name, key, prefixes.get(key)!, 0);
          if (!map.has(key)) removed.add(key);
        }
        forEachDecodedEntry(frame.entries, (key, value, index) => {
          const needed = prefixes.size > 0 ? prefixes.get(key) : undefined;
          if (needed === undefined) return add(key, value, index);
          const list = value as unknown[];
          if (list.length < needed) throw notFollowing(source, name, key, needed, list.length);
          prefixes.delete(key);
          add(key, appendRows(list, needed, map.get(key) as unknown[]), index);
        }, skip);
        if (appends !== undefined) {
          forEachDecodedEntry(appends.entries, (key, value, index) => {
            const rows = value as unknown[];
            const base = appends.bases[index]!;
            const needed = prefixes.size > 0 ? prefixes.get(key) : undefined;
            if (needed === undefined) {
              add(key, rows);
              if (base > 0) prefixes.set(key, base);
              return;
            }
            // This file's list is `base` older rows, then `rows`: the end already held needs its first `needed`.
            if (needed <= base) return;
            if (base + rows.length < needed) throw notFollowing(source, name, key, needed, base + rows.length);
            add(key, appendRows(rows, needed - base, map.get(key) as unknown[]));
            if (base === 0) prefixes.delete(key);
            else prefixes.set(key, base);
          }, skip);
        }
      }, order);
      newer?.applied();
    }
    for (const table of touched) if (table.accessed !== undefined) for (const accessed of table.accessed) if (accessed !== undefined) sortByAccess(accessed);
  }

  /** A snapshot of the form weir wrote before key groups: one array of [name, kind, entries, accessed?]. */
  private applyUnframed(data: Uint8Array, ownsGroup: (keyGroup: number) => boolean, owns: ((key: Key) => boolean) | undefined, now: number, touched: Set<HeapStateTable>): void {
    const tables = deserializeOwning(data) as [string, StateKind, EncodedEntries, Map<Key, number>?][];
    for (const [name, kind, entries, accessed] of tables) {
      const target = this.tableOf({ name }, kind);
      touched.add(target);
      forEachDecodedEntry(entries, (key, value) => {
        const group = keyGroupOf(key, this.maxParallelism);
        if (!ownsGroup(group) || (owns !== undefined && !owns(key))) return;
        target.group(group).set(key, value);
        if (target.accessed !== undefined) target.accessedIn(group).set(key, accessed?.get(key) ?? now);
      });
    }
  }

  entriesOf<T>(descriptor: StateDescriptor): IterableIterator<[Key, T]> {
    this.sweep(true);
    const table = this.tables.get(descriptor.name);
    return (table === undefined ? new Map<Key, T>().entries() : table.entries()) as IterableIterator<[Key, T]>;
  }

  stateEntries(): number {
    let entries = 0;
    for (const table of this.tables.values()) entries += table.size;
    return entries;
  }

  /** Nothing to release: the heap backend's state goes with the object. */
  dispose(): void {}

  keyCount(): number {
    this.sweep(true);
    const keys = new Set<Key>();
    for (const table of this.tables.values()) for (const [key] of table.entries()) keys.add(key);
    return keys.size;
  }

  getValueState<T>(descriptor: StateDescriptor): ValueState<T> {
    const table = this.tableOf(descriptor, 'value');
    const groups = table.groups;
    return this.expiring(table, {
      value: () => groups[this.slot]?.get(this.currentKey) as T | undefined,
      update: (value) => void table.group(this.slot).set(this.currentKey, value),
      clear: () => void groups[this.slot]?.delete(this.currentKey),
    });
  }

  getMapState<K, V>(descriptor: StateDescriptor): MapState<K, V> {
    const table = this.tableOf(descriptor, 'map');
    const groups = table.groups;
    const current = (): Map<K, V> | undefined => groups[this.slot]?.get(this.currentKey) as Map<K, V> | undefined;
    const currentOrNew = (): Map<K, V> => {
      let map = current();
      if (map === undefined) {
        map = new Map();
        table.group(this.slot).set(this.currentKey, map);
      }
      return map;
    };
    return this.expiring(table, {
      get: (mapKey) => current()?.get(mapKey),
      put: (mapKey, value) => void currentOrNew().set(mapKey, value),
      remove: (mapKey) => {
        const map = current();
        if (map === undefined) return;
        map.delete(mapKey);
        if (map.size === 0) groups[this.slot]!.delete(this.currentKey);
      },
      contains: (mapKey) => current()?.has(mapKey) ?? false,
      entries: () => (current() ?? new Map<K, V>()).entries(),
      isEmpty: () => (current()?.size ?? 0) === 0,
      clear: () => void groups[this.slot]?.delete(this.currentKey),
    });
  }

  getListState<T>(descriptor: StateDescriptor): ListState<T> {
    const table = this.tableOf(descriptor, 'list');
    const groups = table.groups;
    // Lists only ever grow in place (add); update replaces the array. Snapshots rely on it: a
    // list's value at a barrier is its array and length then (heap-snapshot-writer.ts).
    const appends = table.appends;
    return this.expiring(table, {
      get: () => (groups[this.slot]?.get(this.currentKey) as T[] | undefined) ?? NO_VALUES,
      add: (value) => {
        const map = table.group(this.slot);
        const list = map.get(this.currentKey) as T[] | undefined;
        appends?.appending(this.currentKey, list === undefined ? 0 : list.length);
        if (list === undefined) map.set(this.currentKey, [value]);
        else list.push(value);
      },
      update: (values) => {
        appends?.rewritten(this.currentKey);
        if (values.length === 0) groups[this.slot]?.delete(this.currentKey);
        else table.group(this.slot).set(this.currentKey, [...values]);
      },
      clear: () => {
        appends?.rewritten(this.currentKey);
        groups[this.slot]?.delete(this.currentKey);
      },
    });
  }

  getReducingState<T>(descriptor: StateDescriptor, reduce: (a: T, b: T) => T): ReducingState<T> {
    const table = this.tableOf(descriptor, 'reducing');
    const groups = table.groups;
    return this.expiring(table, {
      get: () => groups[this.slot]?.get(this.currentKey) as T | undefined,
      add: (value) => {
        const map = table.group(this.slot);
        const previous = map.get(this.currentKey) as T | undefined;
        map.set(this.currentKey, previous === undefined ? value : reduce(previous, value));
      },
      clear: () => void groups[this.slot]?.delete(this.currentKey),
    });
  }

  private tableOf(descriptor: StateDescriptor, kind: StateKind): HeapStateTable {
    const existing = this.tables.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.kind !== kind) throw new Error(`state '${descriptor.name}' is declared as ${existing.kind} state, not ${kind}`);
      return existing;
    }
    const table = new HeapStateTable(descriptor.name, kind, this.maxParallelism, this.ttlMillis !== undefined, this.changes !== undefined);
    this.tables.set(descriptor.name, table);
    return table;
  }

  /**
   * The state handle itself without a time-to-live; with one, a handle whose every call first
   * drops the current key's state if it expired, and afterwards records the access.
   */
  private expiring<S extends object>(table: HeapStateTable, state: S): S {
    const ttl = this.ttlMillis;
    if (table.accessed === undefined || ttl === undefined) return state;
    const wrapped: Record<string, unknown> = {};
    for (const [name, method] of Object.entries(state) as [string, (...args: unknown[]) => unknown][]) {
      wrapped[name] = (...args: unknown[]): unknown => {
        const key = this.currentKey;
        const slot = this.slot;
        const now = this.clock();
        const accessed = table.accessedIn(slot);
        const last = accessed.get(key);
        if (last !== undefined) {
          accessed.delete(key);
          if (now - last >= ttl) table.groups[slot]?.delete(key);
        }
        const result = method(...args);
        if (table.groups[slot]?.has(key) === true) accessed.set(key, now);
        this.sweepAt(now, false);
        return result;
      };
    }
    return wrapped as S;
  }

  /** Drops expired keys of every table: all of them when `full`, else at most once per millisecond. */
  private sweep(full: boolean): void {
    if (this.ttlMillis !== undefined) this.sweepAt(this.clock(), full);
  }

  private sweepAt(now: number, full: boolean): void {
    if (!full && now === this.lastSweep) return;
    this.lastSweep = now;
    const ttl = this.ttlMillis!;
    for (const table of this.tables.values()) {
      const groups = table.accessed!;
      for (let group = 0; group < groups.length; group++) {
        const accessed = groups[group];
        if (accessed === undefined) continue;
        for (const [key, last] of accessed) {
          if (now - last < ttl) break;
          this.beforeRemoval(key, group);
          accessed.delete(key);
          table.groups[group]?.delete(key);
        }
      }
    }
  }

  /** A key is about to be removed without being selected (TTL sweep): snapshots copy it first, and it counts as changed. */
  private beforeRemoval(key: Key, group: number): void {
    this.changes?.changedUnselected(key, group);
    for (const writer of this.writers) writer.copyKey(key, group);
  }
}

/** The values of a key without list state (shared: callers never mutate what `get` returns). */
const NO_VALUES: readonly never[] = Object.freeze([]);

/** Reorders an access map oldest first (restored keys arrive in snapshot order). */
function sortByAccess(accessed: Map<Key, number>): void {
  const sorted = [...accessed].sort((a, b) => a[1] - b[1]);
  accessed.clear();
  for (const [key, at] of sorted) accessed.set(key, at);
}
