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

  /**
   * Empties the batch so that its arrays can be reused, keeping their capacity: popping never
   * shrinks an array, whereas `length = 0` drops its storage, and growing a large array again
   * (past V8's large-object size, ~16K elements) costs about ten times a push per element.
   */
  clear(): void {
    const { kinds, rows } = this;
    while (rows.length > 0) {
      rows.pop();
      kinds.pop();
    }
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
