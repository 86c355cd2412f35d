/**
 * The disk keyed state backend (`state.backend.type` = `rocksdb`, Flink's name, or `lmdb`): state
 * lives in an embedded LMDB environment in a fresh directory of its own, so a subtask's state is
 * bounded by disk, not by the heap. LMDB was chosen over RocksDB for Node: lmdb-js is maintained,
 * ships prebuilt Linux binaries, reads synchronously (an operator's state access is synchronous)
 * and gives MVCC read transactions, which make a consistent snapshot free.
 *
 * Layout and value encoding: lmdb-record-codec.ts (one LMDB entry per declared state, key group
 * and key; a key group of a state is one key range). A map or list state is stored as one value
 * per key (the whole Map or array): one new element rewrites it (a known limit of this backend).
 *
 * In front of LMDB, a bounded write-back cache (`state.backend.lmdb.cache-entries` entries over
 * all declared states): per declared state a Map from key to its entry (value, or undefined for a
 * key known absent or removed), with a dirty flag. A read that misses loads the key from LMDB; a
 * write only changes the cached entry. Dirty entries reach LMDB in one write transaction when the
 * cache is full (the least recently used eighth is evicted, CLOCK: an entry used since the last
 * sweep gets a second chance) and as soon as {@link DIRTY_BATCH_ENTRIES} are dirty (write-behind).
 * A removal is a dirty entry without value (a tombstone) until it is flushed. Values are not
 * copied on reads (`sharesValues` is false: an operator writes back every change, so what the
 * cache holds is what it wrote); they are serialised when flushed. Large write transactions matter:
 * each one copies every B-tree page it touches, and keys spread over the whole tree touch about one
 * page each when few are written together.
 *
 * Snapshots (lmdb-snapshot-writer.ts) flush nothing at the barrier: the synchronous part takes an
 * LMDB read transaction — an MVCC snapshot of what was written — and freezes the dirty entries,
 * handing the writer their values as of the barrier (the references, O(dirty entries), no copy).
 * A frozen entry is copied the first time processing reads it afterwards (copy-on-access, as the
 * heap backend does), so an operator changing the value in place changes the copy while the writer
 * keeps the barrier's object; a clean entry's value at the barrier is the one LMDB has. The file is
 * written asynchronously from the two, per key group, in chunks. Files are those of the heap backend
 * (key-group-state-file.ts): a checkpoint of either restores into the other. Change tracking for
 * incremental checkpoints is the heap backend's (key-change-log.ts): the keys selected since the
 * last completed checkpoint, per key group, frozen per checkpoint at its barrier.
 *
 * The environment lives in a fresh directory under `state.backend.rocksdb.localdir`, created when
 * the first state is declared (or restored; a subtask without keyed state has none). It has no
 * durability (noSync): state is rebuilt from checkpoints after a crash, so the directory is removed
 * when the backend is disposed (the job ends or fails), and at the latest when the process exits.
 * lmdb-js grows the map size as the data grows.
 *
 * With a time-to-live (Flink's `table.exec.state.ttl`), every stored value carries its last write
 * (lmdb-record-codec.ts) and a key of a declared state not written for that long (processing time)
 * is never returned: reading it removes it (a tombstone, which a delta writes as a removal). As in
 * Flink's default (`OnCreateAndWrite`), reads do not refresh a key: on disk a refresh costs a
 * write, and an operator writes back every change here. (The heap backend refreshes on reads too,
 * since operators may change its values in place.) Keys that are never read again are removed by
 * an incremental cleanup, as Flink's RocksDB compaction filter does: every write transaction also
 * scans a quarter as many records as it wrote (at least 1,024), from where the last scan stopped,
 * and removes the expired ones the cache does not hold (the scan costs about 2% of a GROUP BY's
 * time; scanning as many as were written cost 7%). Snapshots record each entry's last write, so
 * either backend restores the same expiry; a full snapshot leaves out entries already expired.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { RootDatabase } from 'lmdb';
import { hashKeyBits, keyGroupOf, keyGroupOfHash, type Key } from '../../common/key-codec.js';
import { copyOf, SNAPSHOT_CHUNK_ENTRIES } from './heap-snapshot-writer.js';
import { KeyChangeLog } from './key-change-log.js';
import { isFramedStateFile, readStateFile, type StateKind } from './key-group-state-file.js';
import { appendRows, notFollowing } from './list-append-log.js';
import type { ListState, MapState, ReducingState, StateDescriptor, ValueState } from './keyed-state-backend.js';
import { decodeRecord, decodeValue, encodeKey, encodeValue, isLongKey, keyGroupOfRecord, rangeStart, recordKey, storedAccess } from './lmdb-record-codec.js';
import { LmdbSnapshotWriter, NOT_FROZEN, type FrozenEntries } from './lmdb-snapshot-writer.js';
import { MemoryStateBackend, type StateTtlOptions } from './memory-state-backend.js';
import { KEYS_PER_SNAPSHOT_CHUNK, stepFromProcessing } from './snapshot-pacer.js';
import type { SnapshotRequest, SnapshottingStateBackend } from './snapshotting-state-backend.js';
import { forEachDecodedEntry } from './state-table-codec.js';

/**
 * lmdb-js's transaction flag for a write transaction committed before transactionSync returns,
 * without ABORTABLE (which costs a nested transaction). Nothing in it can throw but LMDB itself:
 * values are serialised before it begins (a value that cannot be, fails the job there).
 */
const SYNCHRONOUS_COMMIT = 2;

/** The default number of key groups (`pipeline.max-parallelism`). */
const DEFAULT_MAX_PARALLELISM = 128;

/**
 * Dirty entries written to LMDB together as soon as there are this many (write-behind). The
 * synchronous part of a snapshot freezes at most this many (a reference each); a larger batch
 * touches fewer B-tree pages per entry written.
 */
export const DIRTY_BATCH_ENTRIES = 1 << 15;

/** Cached entries per subtask by default (`state.backend.lmdb.cache-entries`). */
export const DEFAULT_CACHE_ENTRIES = 1 << 18;

/** How a disk backend is set up. */
export interface LmdbStateBackendOptions {
  /** Key groups (`pipeline.max-parallelism`); 128 by default. */
  readonly maxParallelism?: number;
  /** Remember the keys changed since the last completed checkpoint, so that checkpoints can be deltas. */
  readonly trackChanges?: boolean;
  /** Entries a snapshot serialises between two turns of the event loop (tests make it small). */
  readonly snapshotChunkEntries?: number;
  /** The directory under which the backend creates its own (`state.backend.rocksdb.localdir`); the OS's temporary directory by default. */
  readonly localDir?: string;
  /** Entries the write-back cache holds at most, over all declared states (`state.backend.lmdb.cache-entries`). */
  readonly cacheEntries?: number;
  /** A state time-to-live (see the module comment); absent keeps state forever. */
  readonly ttl?: StateTtlOptions;
}

/** A cached key of one declared state. */
interface CacheEntry {
  readonly key: Key;
  readonly group: number;
  /** The value, or undefined when the key has none (known absent, or removed: a tombstone when dirty). */
  value: unknown;
  /** Changed since it was loaded or last flushed. */
  dirty: boolean;
  /** Used since the last eviction sweep passed it (CLOCK's reference bit). */
  used: boolean;
  /** A pending snapshot holds the value as it was at its barrier: copy it before handing it out. */
  frozen: boolean;
  /** With a time-to-live: the value's last write (epoch milliseconds). */
  accessed: number;
}

/** One declared state: its id in the LMDB layout and its cache. */
export interface LmdbStateTable {
  readonly id: number;
  readonly name: string;
  readonly kind: StateKind;
  readonly cache: Map<Key, CacheEntry>;
}

/** lmdb-js, loaded at the first disk backend's first use (its native binding is not needed otherwise). */
function loadLmdb(): typeof import('lmdb') {
  return createRequire(import.meta.url)('lmdb') as typeof import('lmdb');
}

/** Directories of backends not yet disposed, removed when the process exits. */
const openDirectories = new Set<string>();
let exitHookInstalled = false;

function removeOnExit(dir: string): void {
  openDirectories.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const open of openDirectories) rmSync(open, { recursive: true, force: true });
  });
}

/** Keyed state on disk, in LMDB, behind a write-back cache (see the module comment). */
export class LmdbStateBackend implements SnapshottingStateBackend {
  private readonly localDir: string;
  /** The directory of the LMDB environment, once opened (removed by {@link dispose}). */
  private dir: string | undefined;
  private env: RootDatabase<Buffer, Buffer> | undefined;
  private currentKey: Key = null;
  private slot: number;
  private readonly tables = new Map<string, LmdbStateTable>();
  private readonly tableList: LmdbStateTable[] = [];
  private readonly maxParallelism: number;
  private readonly chunkEntries: number;
  private readonly capacity: number;
  /** Entries over all caches. */
  private cached = 0;
  /** Entries that became dirty since the last flush, with their table (some may be clean again: evicted and written). */
  private dirty: [LmdbStateTable, CacheEntry][] = [];
  /** The keys selected since the last completed checkpoint; undefined without change tracking. */
  private readonly changes: KeyChangeLog | undefined;
  private writers: LmdbSnapshotWriter[] = [];
  /** Key changes since a snapshot chunk was last written from processing (see writeChunk). */
  private keysSinceChunk = 0;
  private disposed = false;
  private readonly ttlMillis: number | undefined;
  private readonly clock: () => number;
  /** Where the next incremental cleanup of expired records starts (undefined: at the first record). */
  private sweepFrom: Buffer | undefined;

  constructor(options: LmdbStateBackendOptions = {}) {
    const { maxParallelism = DEFAULT_MAX_PARALLELISM, trackChanges = false, snapshotChunkEntries = SNAPSHOT_CHUNK_ENTRIES, localDir = tmpdir(), cacheEntries = DEFAULT_CACHE_ENTRIES, ttl } = options;
    if (ttl !== undefined && !(ttl.ttlMillis > 0)) throw new Error(`state ttl must be positive, got ${ttl.ttlMillis}`);
    this.ttlMillis = ttl?.ttlMillis;
    this.clock = ttl?.clock ?? Date.now;
    if (!Number.isSafeInteger(snapshotChunkEntries) || snapshotChunkEntries < 1) throw new Error(`snapshot chunks must hold at least one entry, got ${snapshotChunkEntries}`);
    if (!Number.isSafeInteger(maxParallelism) || maxParallelism < 1 || maxParallelism > 0xffff) throw new Error(`max parallelism must be a whole number from 1 to 65535, got ${maxParallelism}`);
    if (!Number.isSafeInteger(cacheEntries) || cacheEntries < 1) throw new Error(`the disk state backend's cache must hold at least one entry, got ${cacheEntries}`);
    this.maxParallelism = maxParallelism;
    this.chunkEntries = snapshotChunkEntries;
    this.capacity = cacheEntries;
    this.slot = keyGroupOf(null, maxParallelism);
    if (trackChanges) this.changes = new KeyChangeLog(maxParallelism, this.currentKey, this.slot);
    this.localDir = localDir;
  }

  /** The directory of the LMDB environment; undefined until a state is declared, and after {@link dispose}. */
  get directory(): string | undefined {
    return this.dir;
  }

  /** The LMDB environment, opened at first use. */
  private get db(): RootDatabase<Buffer, Buffer> {
    return this.env ?? this.openEnvironment();
  }

  private openEnvironment(): RootDatabase<Buffer, Buffer> {
    this.checkOpen();
    mkdirSync(this.localDir, { recursive: true });
    const dir = mkdtempSync(join(this.localDir, 'weir-lmdb-'));
    this.dir = dir;
    removeOnExit(dir);
    try {
      this.env = loadLmdb().open<Buffer, Buffer>({ path: dir, noSync: true, noMetaSync: true, encoding: 'binary', keyEncoding: 'binary', compression: false, cache: false });
    } catch (error) {
      this.removeDirectory();
      throw error;
    }
    return this.env;
  }

  /** Values are serialised on their way to disk: an operator writes back every change. */
  get sharesValues(): boolean {
    return false;
  }

  get tracksChanges(): boolean {
    return this.changes !== undefined;
  }

  setCurrentKey(key: Key): void {
    if (key === this.currentKey) return;
    this.currentKey = key;
    const hash = hashKeyBits(key);
    const slot = (this.slot = keyGroupOfHash(hash, this.maxParallelism));
    this.changes?.selected(key, hash, slot);
    if (this.writers.length > 0 && ++this.keysSinceChunk >= KEYS_PER_SNAPSHOT_CHUNK) this.writeChunk();
  }

  /**
   * Writes a chunk of the oldest snapshot being written, between two keys of processing (as the
   * heap backend does: a writer's own turns come only between turns of processing). Safe at any
   * key change: the writer reads its read transaction and the values frozen at its barrier. A
   * failure is the writer's (it rethrows it to its stream, which declines the checkpoint).
   */
  private writeChunk(): void {
    this.keysSinceChunk = 0;
    stepFromProcessing(this.writers[0]!);
  }

  getCurrentKey(): Key {
    return this.currentKey;
  }

  /** The declared states (for snapshots and tests). */
  states(): readonly LmdbStateTable[] {
    return this.tableList;
  }

  beginSnapshot(request: SnapshotRequest): LmdbSnapshotWriter {
    this.checkOpen();
    if (request.kind === 'delta' && this.changes === undefined) throw new Error('a delta snapshot needs a state backend that tracks changes');
    if (request.checkpointId !== undefined) this.changes?.freeze(request.checkpointId, this.currentKey, this.slot);
    const changes = request.kind === 'delta' ? this.changes!.pending() : [];
    const expiry = this.ttlMillis === undefined ? undefined : { ttlMillis: this.ttlMillis, now: this.clock() };
    const writer = new LmdbSnapshotWriter(this.tableList.length === 0 ? undefined : this.db, [...this.tableList], this.freezeDirty(), request.kind, changes, this.maxParallelism, this.chunkEntries, (done) => {
      this.writers = this.writers.filter((w) => w !== done);
    }, expiry);
    if (!writer.done) this.writers.push(writer);
    return writer;
  }

  /**
   * The dirty entries with their values at the barrier, marked frozen (see the module comment): what
   * a snapshot's read transaction does not have. O(dirty entries), at most a write-behind batch:
   * the dirty list itself (only appended to, or replaced, afterwards) and an array of values.
   */
  private freezeDirty(): FrozenEntries {
    const entries = this.dirty;
    const values = new Array<unknown>(entries.length);
    const accessed = this.ttlMillis === undefined ? undefined : new Float64Array(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]![1];
      if (!entry.dirty) {
        values[i] = NOT_FROZEN;
        continue;
      }
      entry.frozen = true;
      values[i] = entry.value;
      if (accessed !== undefined) accessed[i] = entry.accessed;
    }
    return { entries, values, accessed };
  }

  notifyCheckpointComplete(checkpointId: number): void {
    this.changes?.completed(checkpointId);
  }

  snapshot(): Uint8Array | undefined {
    const writer = this.beginSnapshot({ kind: 'full' });
    return writer.empty ? undefined : writer.writeSync();
  }

  restore(snapshot: Uint8Array, owns: (key: Key) => boolean = () => true, source = 'snapshot'): void {
    this.apply(snapshot, source, () => true, owns);
  }

  restoreKeyGroups(snapshot: Uint8Array, ownsGroup: (keyGroup: number) => boolean, source = 'snapshot'): void {
    this.apply(snapshot, source, ownsGroup, undefined);
  }

  /** The disk backend applies a chain oldest first (each file in one write transaction). */
  get restoresNewestFirst(): boolean {
    return false;
  }

  /** Applies a state file straight to LMDB, in one write transaction, after flushing and emptying the cache. */
  private apply(data: Uint8Array, source: string, ownsGroup: (keyGroup: number) => boolean, owns: ((key: Key) => boolean) | undefined): void {
    this.checkOpen();
    if (!isFramedStateFile(data)) {
      // The single-buffer form of an older weir: read by the heap backend, applied in the framed form.
      const heap = new MemoryStateBackend({ maxParallelism: this.maxParallelism });
      heap.restoreKeyGroups(data, ownsGroup, source);
      const framed = heap.snapshot();
      if (framed !== undefined) this.apply(framed, source, () => true, owns);
      return;
    }
    this.flush();
    this.dropCache();
    const db = this.db;
    // With a time-to-live, an entry keeps the last write its file recorded (the restore's time when none).
    const now = this.ttlMillis === undefined ? undefined : this.clock();
    db.transactionSync(() => {
      readStateFile(data, source, ownsGroup, (header, frame) => {
        const [name, kind] = header.tables[frame.table]!;
        const table = this.tableOf({ name }, kind);
        forEachDecodedEntry(frame.entries, (key, value, index) => {
          if (owns !== undefined && !owns(key)) return;
          const encoded = encodeKey(key);
          db.putSync(recordKey(table.id, frame.keyGroup, encoded), encodeValue(value, isLongKey(encoded) ? encoded : undefined, now === undefined ? undefined : (frame.accessed?.[index] ?? now)));
        });
        const appends = frame.appends;
        if (appends !== undefined) {
          forEachDecodedEntry(appends.entries, (key, rows, index) => {
            if (owns !== undefined && !owns(key)) return;
            const encoded = encodeKey(key);
            const record = recordKey(table.id, frame.keyGroup, encoded);
            const stored = db.getBinary(record);
            const list = stored === undefined ? [] : (decodeValue(stored) as unknown[]);
            const base = appends.bases[index]!;
            if (list.length < base) throw notFollowing(source, name, key, base, list.length);
            db.putSync(record, encodeValue(appendRows(list, base, rows as unknown[]), isLongKey(encoded) ? encoded : undefined, now));
          });
        }
        for (const key of frame.tombstones) db.removeSync(recordKey(table.id, frame.keyGroup, encodeKey(key)));
      });
    });
  }

  /** Every key of a declared state with its value, as of the call (read from an LMDB read transaction); expired keys are left out. */
  *entriesOf<T>(descriptor: StateDescriptor): IterableIterator<[Key, T]> {
    this.checkOpen();
    const table = this.tables.get(descriptor.name);
    if (table === undefined) return;
    this.flush();
    const now = this.clock();
    const txn = this.db.useReadTransaction();
    try {
      const range = this.db.getRange({ start: rangeStart(table.id, 0), end: rangeStart(table.id + 1, 0), transaction: txn });
      for (const { key, value } of range) if (!this.expired(storedAccess(value), now)) yield decodeRecord(key, value) as [Key, T];
    } finally {
      txn.done();
    }
  }

  keyCount(): number {
    const keys = new Set<Key>();
    for (const table of this.tableList) for (const [key] of this.entriesOf({ name: table.name })) keys.add(key);
    return keys.size;
  }

  /** Entries on disk as of the last flush (the cache's unflushed changes are not counted). */
  stateEntries(): number {
    return this.env === undefined || this.disposed ? 0 : (this.env.getStats() as { entryCount: number }).entryCount;
  }

  /** Closes the environment and removes its directory; snapshots still being written fail. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const writer of this.writers) writer.abort();
    this.writers = [];
    for (const table of this.tableList) table.cache.clear();
    this.dirty = [];
    const env = this.env;
    if (env === undefined) return;
    this.env = undefined;
    const dir = this.dir;
    env.close().catch((error: unknown) => {
      process.emitWarning(`the disk state backend in ${String(dir)} did not close cleanly: ${error instanceof Error ? error.message : String(error)}`);
    });
    this.removeDirectory();
  }

  private removeDirectory(): void {
    const dir = this.dir;
    if (dir === undefined) return;
    this.dir = undefined;
    rmSync(dir, { recursive: true, force: true });
    openDirectories.delete(dir);
  }

  private checkOpen(): void {
    if (this.disposed) throw new Error('the disk state backend was disposed (its job has ended)');
  }

  getValueState<T>(descriptor: StateDescriptor): ValueState<T> {
    const table = this.tableOf(descriptor, 'value');
    return {
      value: () => this.entry(table).value as T | undefined,
      update: (value) => this.set(this.entry(table), table, value),
      clear: () => this.set(this.entry(table), table, undefined),
    };
  }

  getMapState<K, V>(descriptor: StateDescriptor): MapState<K, V> {
    const table = this.tableOf(descriptor, 'map');
    const current = (): Map<K, V> | undefined => this.entry(table).value as Map<K, V> | undefined;
    return {
      get: (mapKey) => current()?.get(mapKey),
      put: (mapKey, value) => {
        const entry = this.entry(table);
        const map = (entry.value as Map<K, V> | undefined) ?? new Map<K, V>();
        map.set(mapKey, value);
        this.set(entry, table, map);
      },
      remove: (mapKey) => {
        const entry = this.entry(table);
        const map = entry.value as Map<K, V> | undefined;
        if (map === undefined || !map.delete(mapKey)) return;
        this.set(entry, table, map.size === 0 ? undefined : map);
      },
      contains: (mapKey) => current()?.has(mapKey) ?? false,
      entries: () => [...(current() ?? new Map<K, V>())][Symbol.iterator](),
      isEmpty: () => (current()?.size ?? 0) === 0,
      clear: () => this.set(this.entry(table), table, undefined),
    };
  }

  getListState<T>(descriptor: StateDescriptor): ListState<T> {
    const table = this.tableOf(descriptor, 'list');
    return {
      get: () => (this.entry(table).value as T[] | undefined) ?? NO_VALUES,
      add: (value) => {
        const entry = this.entry(table);
        const list = entry.value as T[] | undefined;
        if (list === undefined) this.set(entry, table, [value]);
        else {
          list.push(value);
          this.set(entry, table, list);
        }
      },
      update: (values) => this.set(this.entry(table), table, values.length === 0 ? undefined : [...values]),
      clear: () => this.set(this.entry(table), table, undefined),
    };
  }

  getReducingState<T>(descriptor: StateDescriptor, reduce: (a: T, b: T) => T): ReducingState<T> {
    const table = this.tableOf(descriptor, 'reducing');
    return {
      get: () => this.entry(table).value as T | undefined,
      add: (value) => {
        const entry = this.entry(table);
        const previous = entry.value as T | undefined;
        this.set(entry, table, previous === undefined ? value : reduce(previous, value));
      },
      clear: () => this.set(this.entry(table), table, undefined),
    };
  }

  private tableOf(descriptor: StateDescriptor, kind: StateKind): LmdbStateTable {
    const existing = this.tables.get(descriptor.name);
    if (existing !== undefined) {
      if (existing.kind !== kind) throw new Error(`state '${descriptor.name}' is declared as ${existing.kind} state, not ${kind}`);
      return existing;
    }
    if (this.tableList.length >= 0xffff) throw new Error('the disk state backend holds at most 65535 declared states per subtask');
    if (this.env === undefined) this.openEnvironment();
    const table: LmdbStateTable = { id: this.tableList.length, name: descriptor.name, kind, cache: new Map() };
    this.tables.set(descriptor.name, table);
    this.tableList.push(table);
    return table;
  }

  /** The cache entry of the current key in `table`, loaded from LMDB on a miss; with a time-to-live, an expired value is removed first. */
  private entry(table: LmdbStateTable): CacheEntry {
    const key = this.currentKey;
    let entry = table.cache.get(key);
    if (entry !== undefined) {
      entry.used = true;
      if (entry.frozen) {
        // A pending snapshot holds this value object: processing gets a copy to change.
        entry.frozen = false;
        entry.value = copyOf(entry.value);
      }
    } else {
      this.checkOpen();
      // Room first: the entry returned is then in the cache until the next miss.
      if (this.cached >= this.capacity) this.evict();
      const group = this.slot;
      // getBinary: a copy of exactly the value (getBinaryFast may hand out its whole shared buffer).
      const stored = this.db.getBinary(recordKey(table.id, group, encodeKey(key)));
      const value = stored === undefined ? undefined : decodeValue(stored);
      // A value stored without its last write (none of its files recorded one) counts from now.
      const accessed = stored === undefined || this.ttlMillis === undefined ? 0 : (storedAccess(stored) ?? this.clock());
      entry = { key, group, value, dirty: false, used: false, frozen: false, accessed };
      table.cache.set(key, entry);
      this.cached++;
    }
    if (this.ttlMillis !== undefined && entry.value !== undefined && this.expired(entry.accessed, this.clock())) this.markDirty(table, entry, undefined);
    return entry;
  }

  /** True when a value last written at `accessed` (undefined: not recorded) has expired at `now`; never without a time-to-live. */
  private expired(accessed: number | undefined, now: number): boolean {
    return this.ttlMillis !== undefined && accessed !== undefined && now - accessed >= this.ttlMillis;
  }

  private set(entry: CacheEntry, table: LmdbStateTable, value: unknown): void {
    if (this.ttlMillis !== undefined) entry.accessed = this.clock();
    this.markDirty(table, entry, value);
  }

  /** Gives the entry a new value (undefined: removed) to be written behind. */
  private markDirty(table: LmdbStateTable, entry: CacheEntry, value: unknown): void {
    entry.value = value;
    entry.used = true;
    if (entry.dirty) return;
    entry.dirty = true;
    // Written behind in batches, so that a barrier never has more than a batch left to flush.
    if (this.dirty.push([table, entry]) >= DIRTY_BATCH_ENTRIES) this.flush();
  }

  /** Writes the dirty entries to LMDB in one write transaction; they stay cached, clean. */
  private flush(): void {
    if (this.env === undefined) return;
    const dirty = this.dirty;
    if (dirty.length === 0) return;
    this.dirty = [];
    this.write(dirty);
  }

  /**
   * The incremental cleanup of a time-to-live: scans up to `budget` records from where the last
   * scan stopped (wrapping around at the end) and removes, in one write transaction, those expired
   * whose key the cache does not hold (a cached entry is newer than its record, and expires when
   * read). A removed key counts as changed, so the next delta writes its removal.
   */
  private sweepDisk(budget: number): void {
    const db = this.db;
    const now = this.clock();
    const doomed: [record: Buffer, table: LmdbStateTable, key: Key, group: number][] = [];
    let scanned = 0;
    let last: Buffer | undefined;
    for (const { key: record, value } of db.getRange({ start: this.sweepFrom, limit: budget })) {
      scanned++;
      last = Buffer.from(record);
      if (!this.expired(storedAccess(value), now)) continue;
      const table = this.tableList[record.readUInt16BE(0)];
      if (table === undefined) throw new Error(`disk state is corrupt: a record of state #${record.readUInt16BE(0)}, of which there are ${this.tableList.length}`);
      const [key] = decodeRecord(record, value);
      if (!table.cache.has(key)) doomed.push([last, table, key, keyGroupOfRecord(record)]);
    }
    // The smallest key after the last one scanned: the next scan starts there.
    this.sweepFrom = scanned < budget || last === undefined ? undefined : Buffer.concat([last, ZERO_BYTE]);
    if (doomed.length === 0) return;
    db.transactionSync(() => {
      for (const [record] of doomed) db.removeSync(record);
    }, SYNCHRONOUS_COMMIT);
    for (const [, , key, group] of doomed) this.changes?.changedUnselected(key, group);
  }

  /**
   * Writes the entries still dirty in one write transaction, grouped by declared state and key
   * group (the layout's order, so LMDB works through one key range of its B-tree at a time; a
   * full sort of the keys' bytes cost more than it saved), and marks them clean. Values are
   * serialised before the transaction begins. With a time-to-live, then scans for expired records
   * (see {@link sweepDisk}).
   */
  private write(entries: readonly (readonly [LmdbStateTable, CacheEntry])[]): void {
    const byRange: ({ readonly key: Buffer; readonly value: Buffer | undefined }[] | undefined)[] = [];
    let count = 0;
    for (const [table, entry] of entries) {
      if (!entry.dirty) continue;
      const encoded = encodeKey(entry.key);
      const value = entry.value === undefined ? undefined : encodeValue(entry.value, isLongKey(encoded) ? encoded : undefined, this.ttlMillis === undefined ? undefined : entry.accessed);
      (byRange[table.id * this.maxParallelism + entry.group] ??= []).push({ key: recordKey(table.id, entry.group, encoded), value });
      entry.dirty = false;
      count++;
    }
    if (count === 0) return;
    const db = this.db;
    db.transactionSync(() => {
      for (const writes of byRange) {
        if (writes === undefined) continue;
        for (const { key, value } of writes) {
          if (value === undefined) db.removeSync(key);
          else db.putSync(key, value);
        }
      }
    }, SYNCHRONOUS_COMMIT);
    if (this.ttlMillis !== undefined) this.sweepDisk(Math.max(SWEEP_MIN_RECORDS, count >> 2));
  }

  /**
   * Evicts about an eighth of the cache (CLOCK over each state's Map in insertion order: an entry
   * used since the sweep last passed gets a second chance at the end), writing the dirty ones in
   * one transaction.
   */
  private evict(): void {
    const target = this.capacity - Math.max(1, this.capacity >> 3);
    const evicted: [LmdbStateTable, CacheEntry][] = [];
    const total = Math.max(1, this.cached);
    for (const table of this.tableList) {
      const cache = table.cache;
      const keep = Math.floor((cache.size * target) / total);
      for (const [key, entry] of cache) {
        if (cache.size <= keep) break;
        cache.delete(key);
        if (entry.used) {
          entry.used = false;
          cache.set(key, entry);
        } else {
          this.cached--;
          if (entry.dirty) evicted.push([table, entry]);
        }
      }
    }
    if (evicted.length > 0) this.write(evicted);
    // Entries written here are clean: the dirty list keeps only those still dirty once it grows.
    if (this.dirty.length > 2 * this.capacity) this.dirty = this.dirty.filter(([, entry]) => entry.dirty);
  }

  /** Forgets every cached entry (after a flush: none is dirty). */
  private dropCache(): void {
    for (const table of this.tableList) table.cache.clear();
    this.cached = 0;
  }
}

/** The values of a key without list state (shared: callers never mutate what `get` returns). */
const NO_VALUES: readonly never[] = Object.freeze([]);

/** Records an incremental cleanup scans at least (a flush of few entries still moves it on). */
const SWEEP_MIN_RECORDS = 1024;

const ZERO_BYTE = Buffer.of(0);
