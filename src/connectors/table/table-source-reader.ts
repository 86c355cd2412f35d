/**
 * Reads a writable table: its log from a byte offset, as the changelog it records (+I, -U/+U,
 * -D). Unbounded by default — changes appended later by INSERT, UPDATE or DELETE flow into the
 * running queries — or bounded at the log's length when the job started (batch runtime mode).
 */
import type { ChangeBatch } from '../../common/row.js';
import type { PollStatus, SourceReader } from '../../runtime/source-reader.js';
import type { TableLog } from './table-log.js';
import type { TableReaders, TrackedReader } from './table-readers.js';

/** The checkpointed position: bytes of the log consumed, and the end when bounded. */
interface TableOffset {
  readonly byte: number;
  readonly end?: number;
}

/** A reader of one writable table's log; open, it is one of `readers` (what FLUSH waits for). */
export class TableSourceReader implements SourceReader, TrackedReader {
  private byte = 0;
  private end: number | undefined;

  constructor(
    private readonly log: TableLog,
    private readonly bounded: boolean,
    private readonly readers: TableReaders,
  ) {}

  get position(): number {
    return this.byte;
  }

  target(): number {
    return Math.min(this.end ?? Infinity, this.log.size());
  }

  seek(offset: unknown): void {
    const { byte, end } = offset as TableOffset;
    this.byte = byte;
    this.end = end;
  }

  async open(): Promise<void> {
    if (this.bounded) this.end ??= this.log.size();
    this.readers.add(this);
  }

  poll(output: ChangeBatch, maxRecords: number): PollStatus {
    const to = this.end ?? this.log.size();
    const { changes, next } = this.log.read(this.byte, to, maxRecords);
    this.byte = next;
    for (const change of changes) output.push(change.kind, change.row);
    if (changes.length > 0) return 'more';
    return this.end !== undefined && this.byte >= this.end ? 'end' : 'idle';
  }

  currentOffset(): TableOffset {
    return this.end === undefined ? { byte: this.byte } : { byte: this.byte, end: this.end };
  }

  async close(): Promise<void> {
    this.readers.delete(this);
  }
}
