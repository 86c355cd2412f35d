/**
 * Writes one snapshot of a disk (LMDB) backend while processing goes on. The state at the barrier
 * is what LMDB had then — this writer holds an LMDB read transaction taken at the barrier, an MVCC
 * snapshot that later writes never change — overlaid with the entries the backend's cache held dirty
 * (not yet written) then, which the backend froze for it with their values at the barrier (it copies
 * a frozen value before processing may change it). The writer reads the two key group by key group,
 * in chunks (the heap writer's slices: at most `chunkEntries` entries and about a time slice per
 * chunk, snapshot-pacer.ts), and releases the transaction when done or aborted. A `full` file holds
 * every entry (one range scan per declared state, whose entries come key group by key group, a
 * frozen entry written instead of what LMDB has for its key); a `delta` holds, for every key changed
 * since the last completed checkpoint, its value in each declared state or a tombstone. The file is
 * the heap writer's format (key-group-state-file.ts); values are encoded for it as the heap
 * backend's are (state-table-codec.ts), so either backend restores it. The backend also steps the
 * writer from processing (every few thousand key changes), so it does not wait for idle turns.
 * With a time-to-live, every entry is written with its last write, an entry expired at the barrier
 * is left out of a full file and is a removal in a delta.
 */
import type { RootDatabase, Transaction } from 'lmdb';
import type { Key } from '../../common/key-codec.js';
import { SnapshotChunks, SnapshotPacer } from './snapshot-pacer.js';
import { changedKeysOf, hasChangesIn, type ChangeLogs } from './key-change-log.js';
import { encodeStateFileHeader, type StateFileHeader } from './key-group-state-file.js';
import { decodeRecord, decodeValue, encodeKey, keyGroupOfRecord, rangeStart, recordKey, storedAccess } from './lmdb-record-codec.js';
import type { LmdbStateTable } from './lmdb-state-backend.js';
import type { StateSnapshotWriter } from './snapshotting-state-backend.js';
import { SnapshotParts, streamSnapshot, writeSnapshotSync } from './snapshot-parts.js';
import { StateFrameCollector } from './state-frame-collector.js';

/** In {@link FrozenEntries.values}: the entry was not dirty at the barrier (LMDB has its value). */
export const NOT_FROZEN: unique symbol = Symbol('not frozen');

/**
 * The cache entries that were dirty at a barrier, with their values then: `values[i]` is the value
 * of `entries[i]` (undefined: the key had none), or NOT_FROZEN; with a time-to-live, `accessed[i]`
 * its last write then. `entries` may grow afterwards; only its first `values.length` count.
 */
export interface FrozenEntries {
  readonly entries: readonly (readonly [{ readonly id: number }, { readonly key: Key; readonly group: number }])[];
  readonly values: readonly unknown[];
  readonly accessed?: Float64Array | undefined;
}

/** A state's time-to-live and the barrier's time (epoch milliseconds), for a snapshot of state that expires. */
export interface SnapshotExpiry {
  readonly ttlMillis: number;
  readonly now: number;
}

/** A frozen entry's value at the barrier and its last write then (0 without a time-to-live). */
interface FrozenValue {
  readonly value: unknown;
  readonly accessed: number;
}

/** The snapshot of one subtask's disk state being written. */
export class LmdbSnapshotWriter implements StateSnapshotWriter {
  private txn: Transaction | undefined;
  private readonly isEmpty: boolean;
  private readonly parts = new SnapshotParts();
  private finished = false;
  private aborted = false;
  private readonly work: SnapshotChunks;
  private frozen: FrozenEntries;

  /**
   * @param env the backend's environment (undefined when it has none: nothing to write)
   * @param tables the declared states at the barrier (index = state id)
   * @param frozen the cache's dirty entries at the barrier (at most one per state and key), which override what LMDB has
   * @param changed for a delta, logs of changed keys per key group (several logs, and repeats within one: their union)
   * @param expiry with a time-to-live: it and the barrier's time
   */
  constructor(
    private readonly env: RootDatabase<Buffer, Buffer> | undefined,
    private readonly tables: readonly LmdbStateTable[],
    frozen: FrozenEntries,
    readonly kind: 'full' | 'delta',
    private readonly changed: readonly ChangeLogs[],
    private readonly maxParallelism: number,
    private readonly chunkEntries: number,
    private readonly onDone: (writer: LmdbSnapshotWriter) => void,
    private readonly expiry?: SnapshotExpiry,
  ) {
    const txn = env?.useReadTransaction();
    this.txn = txn;
    if (env === undefined || txn === undefined || tables.length === 0) this.isEmpty = true;
    else if (kind === 'full') this.isEmpty = !hasAny(env, txn) && frozen.values.every((value) => value === undefined || value === NOT_FROZEN);
    else this.isEmpty = !changed.some((logs) => logs.some((keys) => (keys?.length ?? 0) > 0));
    this.frozen = this.isEmpty ? NONE_FROZEN : frozen;
    this.work = new SnapshotChunks(this.steps());
    if (this.isEmpty) this.finish();
  }

  get empty(): boolean {
    return this.isEmpty;
  }

  get done(): boolean {
    return this.finished;
  }

  get byteLength(): number {
    return this.parts.byteLength;
  }

  /** None: the disk backend writes lists whole. */
  get appendedBytes(): number {
    return 0;
  }

  step(): boolean {
    if (this.aborted) throw new Error('the snapshot was abandoned (its write failed, or its state backend was disposed when the job ended)');
    return this.work.step();
  }

  /** True once a step failed: every later step throws that error again. */
  get failed(): boolean {
    return this.work.failed;
  }

  stream(): AsyncGenerator<readonly Uint8Array[], void, undefined> {
    return streamSnapshot(this, this.parts);
  }

  writeSync(): Uint8Array {
    return writeSnapshotSync(this, this.parts);
  }

  /** Gives the read transaction back (the snapshot is abandoned, or the backend disposed); later steps throw. */
  abort(): void {
    if (this.finished) return;
    this.aborted = true;
    this.finish();
  }

  private *steps(): Generator<void> {
    const txn = this.txn!;
    const db = this.env!;
    const header: StateFileHeader = { kind: this.kind, tables: this.tables.map((t) => [t.name, t.kind] as const) };
    this.push(encodeStateFileHeader(header));
    const pacer = new SnapshotPacer(this.chunkEntries);
    const tableCount = this.tables.length;
    const overlay = overlayOf(this.frozen, tableCount);
    this.frozen = NONE_FROZEN;
    if (this.kind === 'full') {
      // One range scan per declared state: its entries come key group by key group (the layout's
      // order), a group's frames written when the scan moves on to the next group, after the
      // group's frozen entries (which replace what LMDB has for their keys).
      for (let t = 0; t < tableCount; t++) {
        const id = this.tables[t]!.id;
        let out: StateFrameCollector | undefined;
        let frozen: Map<Key, FrozenValue> | undefined;
        const leaveGroup = (): void => {
          if (out === undefined) return;
          if (frozen !== undefined) {
            this.writeFrozen(out, t, frozen);
            overlay.delete(out.group * tableCount + t);
          }
          out.flush();
        };
        for (const { key, value } of db.getRange({ start: rangeStart(id, 0), end: rangeStart(id + 1, 0), transaction: txn })) {
          const group = keyGroupOfRecord(key);
          if (out?.group !== group) {
            leaveGroup();
            out = this.framesOf(group);
            frozen = overlay.get(group * tableCount + t);
          }
          const accessed = storedAccess(value);
          if (this.expiredAt(accessed)) continue;
          const [k, v] = decodeRecord(key, value);
          if (frozen?.has(k) === true) continue;
          const frames = out;
          frames.entry(t, k, v, accessed);
          if (pacer.entryWritten()) yield* pacer.pause(() => frames.flush());
        }
        leaveGroup();
      }
      // Frozen entries of groups LMDB had nothing of, for a state.
      for (const [slot, frozen] of overlay) {
        const out = this.framesOf(Math.floor(slot / tableCount));
        this.writeFrozen(out, slot % tableCount, frozen);
        out.flush();
        if (pacer.entryWritten()) yield* pacer.pause(() => {});
      }
    } else {
      for (let group = 0; group < this.maxParallelism; group++) {
        if (!hasChangesIn(this.changed, group)) continue;
        const keys = changedKeysOf(this.changed, group);
        const out = this.framesOf(group);
        const frozen = this.tables.map((_, t) => overlay.get(group * tableCount + t));
        for (const key of keys) {
          const encoded = encodeKey(key);
          for (let t = 0; t < tableCount; t++) {
            const inCache = frozen[t]?.get(key);
            let value: unknown;
            let accessed: number | undefined;
            if (inCache !== undefined) ({ value, accessed } = inCache);
            else {
              const stored = db.get(recordKey(this.tables[t]!.id, group, encoded), { transaction: txn });
              value = stored === undefined ? undefined : decodeValue(stored);
              accessed = stored === undefined ? undefined : storedAccess(stored);
            }
            if (value === undefined || this.expiredAt(accessed)) out.tombstone(t, key);
            else out.entry(t, key, value, accessed);
          }
          if (pacer.entryWritten()) yield* pacer.pause(() => out.flush());
        }
        out.flush();
      }
    }
    this.finish();
  }

  /** The frames of a key group; with a time-to-live they record each entry's last write (the barrier's time when it has none). */
  private framesOf(group: number): StateFrameCollector {
    const expiry = this.expiry;
    const lastAccess = expiry === undefined ? undefined : (): number => expiry.now;
    return new StateFrameCollector((part, appended) => this.parts.push(part, appended), group, this.tables.map(() => lastAccess));
  }

  /** True when a value last written at `accessed` (undefined: not recorded) had expired at the barrier. */
  private expiredAt(accessed: number | undefined): boolean {
    const expiry = this.expiry;
    return expiry !== undefined && accessed !== undefined && expiry.now - accessed >= expiry.ttlMillis;
  }

  /** Writes the frozen entries that have a value and had not expired (the others: keys without one at the barrier). */
  private writeFrozen(out: StateFrameCollector, table: number, frozen: Map<Key, FrozenValue>): void {
    const timed = this.expiry !== undefined;
    for (const [key, { value, accessed }] of frozen) if (value !== undefined && !(timed && this.expiredAt(accessed))) out.entry(table, key, value, timed ? accessed : undefined);
  }

  private push(part: Uint8Array): void {
    this.parts.push(part);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.frozen = NONE_FROZEN;
    this.release();
    this.onDone(this);
  }

  private release(): void {
    const txn = this.txn;
    this.txn = undefined;
    txn?.done();
  }
}

const NONE_FROZEN: FrozenEntries = { entries: [], values: [] };

/** The frozen entries by key group and state (`group * tableCount + state`), each a Map from key to value and last write. */
function overlayOf({ entries, values, accessed }: FrozenEntries, tableCount: number): Map<number, Map<Key, FrozenValue>> {
  const overlay = new Map<number, Map<Key, FrozenValue>>();
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === NOT_FROZEN) continue;
    const [table, { key, group }] = entries[i]!;
    const slot = group * tableCount + table.id;
    let frozen = overlay.get(slot);
    if (frozen === undefined) overlay.set(slot, (frozen = new Map()));
    frozen.set(key, { value, accessed: accessed?.[i] ?? 0 });
  }
  return overlay;
}

/** True when the database holds any entry in the transaction's view. */
function hasAny(db: RootDatabase<Buffer, Buffer>, txn: Transaction): boolean {
  for (const _ of db.getRange({ transaction: txn, limit: 1 })) return true;
  return false;
}
