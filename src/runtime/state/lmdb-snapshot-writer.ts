/**
 * Writes one snapshot of a disk (LMDB) backend while processing goes on. The backend has flushed
 * its cache at the barrier; this writer holds an LMDB read transaction taken right after, an MVCC
 * snapshot that later writes never change, so it needs no copy-on-access: it reads the state at
 * the barrier from the transaction, key group by key group, in chunks (the heap writer's slices:
 * at most `chunkEntries` entries and about a time slice per chunk, snapshot-pacer.ts), and releases the
 * transaction when done or aborted. A `full` file holds every entry (one range scan per declared
 * state, whose entries come key group by key group); a `delta` holds, for every key changed since the last completed
 * checkpoint, its value in each declared state or a tombstone. The file is the heap writer's
 * format (key-group-state-file.ts); values are encoded for it as the heap backend's are
 * (state-table-codec.ts), so either backend restores it.
 */
import type { RootDatabase, Transaction } from 'lmdb';
import { SnapshotPacer } from './snapshot-pacer.js';
import { changedKeysOf, hasChangesIn, type ChangeLogs } from './key-change-log.js';
import { encodeStateFileHeader, type StateFileHeader } from './key-group-state-file.js';
import { decodeRecord, decodeValue, encodeKey, keyGroupOfRecord, rangeStart, recordKey } from './lmdb-record-codec.js';
import type { LmdbStateTable } from './lmdb-state-backend.js';
import type { StateSnapshotWriter } from './snapshotting-state-backend.js';
import { SnapshotParts, streamSnapshot, writeSnapshotSync } from './snapshot-parts.js';
import { StateFrameCollector } from './state-frame-collector.js';

/** The snapshot of one subtask's disk state being written. */
export class LmdbSnapshotWriter implements StateSnapshotWriter {
  private txn: Transaction | undefined;
  private readonly isEmpty: boolean;
  private readonly parts = new SnapshotParts();
  private finished = false;
  private aborted = false;
  private readonly work: Generator<void>;

  /**
   * @param env the backend's environment, its cache flushed (undefined when it has none: nothing to write)
   * @param tables the declared states at the barrier (index = state id)
   * @param changed for a delta, logs of changed keys per key group (several logs, and repeats within one: their union)
   */
  constructor(
    private readonly env: RootDatabase<Buffer, Buffer> | undefined,
    private readonly tables: readonly LmdbStateTable[],
    readonly kind: 'full' | 'delta',
    private readonly changed: readonly ChangeLogs[],
    private readonly maxParallelism: number,
    private readonly chunkEntries: number,
    private readonly onDone: (writer: LmdbSnapshotWriter) => void,
  ) {
    const txn = env?.useReadTransaction();
    this.txn = txn;
    if (env === undefined || txn === undefined || tables.length === 0) this.isEmpty = true;
    else if (kind === 'full') this.isEmpty = !hasAny(env, txn);
    else this.isEmpty = !changed.some((logs) => logs.some((keys) => (keys?.length ?? 0) > 0));
    this.work = this.steps();
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
    return this.work.next().done === true;
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
    if (this.kind === 'full') {
      // One range scan per declared state: its entries come key group by key group (the layout's
      // order), a group's frames written when the scan moves on to the next group.
      for (let t = 0; t < tableCount; t++) {
        const id = this.tables[t]!.id;
        let out: StateFrameCollector | undefined;
        for (const { key, value } of db.getRange({ start: rangeStart(id, 0), end: rangeStart(id + 1, 0), transaction: txn })) {
          const group = keyGroupOfRecord(key);
          if (out?.group !== group) {
            out?.flush();
            out = this.framesOf(group);
          }
          const [k, v] = decodeRecord(key, value);
          const frames = out;
          frames.entry(t, k, v);
          if (pacer.entryWritten()) yield* pacer.pause(() => frames.flush());
        }
        out?.flush();
      }
    } else {
      for (let group = 0; group < this.maxParallelism; group++) {
        if (!hasChangesIn(this.changed, group)) continue;
        const keys = changedKeysOf(this.changed, group);
        const out = this.framesOf(group);
        for (const key of keys) {
          const encoded = encodeKey(key);
          for (let t = 0; t < tableCount; t++) {
            const stored = db.get(recordKey(this.tables[t]!.id, group, encoded), { transaction: txn });
            if (stored === undefined) out.tombstone(t, key);
            else out.entry(t, key, decodeValue(stored));
          }
          if (pacer.entryWritten()) yield* pacer.pause(() => out.flush());
        }
        out.flush();
      }
    }
    this.finish();
  }

  /** The frames of a key group (the disk backend has no time-to-live: no access times). */
  private framesOf(group: number): StateFrameCollector {
    return new StateFrameCollector((part, appended) => this.parts.push(part, appended), group, this.tables.map(() => undefined));
  }

  private push(part: Uint8Array): void {
    this.parts.push(part);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.release();
    this.onDone(this);
  }

  private release(): void {
    const txn = this.txn;
    this.txn = undefined;
    txn?.done();
  }
}

/** True when the database holds any entry in the transaction's view. */
function hasAny(db: RootDatabase<Buffer, Buffer>, txn: Transaction): boolean {
  for (const _ of db.getRange({ transaction: txn, limit: 1 })) return true;
  return false;
}
