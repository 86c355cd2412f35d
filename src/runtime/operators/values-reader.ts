/** The reader of an inline VALUES table: subtask 0 emits every row as +I, then the input ends. */
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch } from '../../common/row.js';
import type { ValuesSpec } from '../../dataflow/job-graph.js';
import type { PollStatus, SourceContext, SourceReader } from '../source-reader.js';

/** Replays from its offset (rows emitted), so it is replayable like any source. */
export class ValuesReader implements SourceReader {
  private position = 0;
  private rows: readonly (readonly unknown[])[] = [];

  constructor(private readonly spec: ValuesSpec) {}

  async open(context: SourceContext): Promise<void> {
    this.rows = context.subtask === 0 ? this.spec.rows : [];
  }

  poll(output: ChangeBatch, maxRecords: number): PollStatus {
    const end = Math.min(this.rows.length, this.position + maxRecords);
    for (; this.position < end; this.position++) output.push(RowKind.INSERT, [...this.rows[this.position]!]);
    return this.position >= this.rows.length ? 'end' : 'more';
  }

  currentOffset(): number {
    return this.position;
  }

  seek(offset: unknown): void {
    this.position = Number(offset);
  }

  async close(): Promise<void> {}
}
