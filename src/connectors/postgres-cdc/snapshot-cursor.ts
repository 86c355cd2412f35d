/**
 * The initial copy of the captured table: read on an ordinary session inside a REPEATABLE READ
 * transaction that imports the snapshot exported with the replication slot, so that it holds
 * exactly the transactions committed before the slot's first change. Rows come through a cursor,
 * a batch at a time, as text.
 */
import type pg from 'pg';
import { quoteIdentifier, quoteLiteral, RAW_TEXT } from './cdc-connections.js';
import type { CapturedTable } from './source-table-checks.js';

const CURSOR = 'weir_cdc_snapshot';

/** An open snapshot read; the session is the cursor's until {@link finish}. */
export class SnapshotCursor {
  private constructor(private readonly client: pg.Client) {}

  /** Imports `snapshotName` (its exporting session must still be open and idle) and declares the cursor. */
  static async open(client: pg.Client, snapshotName: string, table: CapturedTable): Promise<SnapshotCursor> {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET TRANSACTION SNAPSHOT ${quoteLiteral(snapshotName)}`);
    const columns = table.columns.map((c) => quoteIdentifier(c.name)).join(', ');
    await client.query(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR SELECT ${columns} FROM ${quoteIdentifier(table.name.schema)}.${quoteIdentifier(table.name.table)}`);
    return new SnapshotCursor(client);
  }

  /** The next at most `count` rows, each value as text (null for NULL), in the table's column order; none at the end. */
  async fetch(count: number): Promise<(string | null)[][]> {
    const result = await this.client.query<(string | null)[]>({ text: `FETCH FORWARD ${Math.max(1, Math.floor(count))} FROM ${CURSOR}`, rowMode: 'array', ...RAW_TEXT });
    return result.rows;
  }

  /** Ends the read-only transaction. */
  async finish(): Promise<void> {
    await this.client.query('COMMIT');
  }
}
