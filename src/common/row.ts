import type { RowKind } from './row-kind.js';

/**
 * A row: positional values typed by the schema it belongs to (see sql-type.ts for the value
 * representation). Rows are immutable once emitted, so operators may keep references to them.
 */
export type Row = unknown[];

/**
 * A batch of changelog records: parallel arrays of kinds and rows, so that no object is allocated
 * per record. A batch handed to a consumer is only valid during that call; the consumer keeps
 * rows, never the batch.
 */
export class ChangeBatch {
  readonly kinds: RowKind[] = [];
  readonly rows: Row[] = [];

  /** Number of records in the batch. */
  get size(): number {
    return this.rows.length;
  }

  /** Appends one record. */
  push(kind: RowKind, row: Row): void {
    this.kinds.push(kind);
    this.rows.push(row);
  }

  /** Empties the batch so that its arrays can be reused. */
  clear(): void {
    this.kinds.length = 0;
    this.rows.length = 0;
  }

  /** A copy that outlives the call it was handed to (the rows themselves are shared: they are immutable). */
  copy(): ChangeBatch {
    const copy = new ChangeBatch();
    for (let i = 0; i < this.rows.length; i++) copy.push(this.kinds[i]!, this.rows[i]!);
    return copy;
  }

  /** A batch holding the given records (for tests and small inline inputs). */
  static of(records: readonly (readonly [RowKind, Row])[]): ChangeBatch {
    const batch = new ChangeBatch();
    for (const [kind, row] of records) batch.push(kind, row);
    return batch;
  }
}
