/**
 * Helpers for the CDC tests: a fresh database per file (its replication slots dropped before the
 * database, since a slot holds WAL and blocks DROP DATABASE), readers over it, a loop that polls a
 * reader as the source task does (barriers only where the reader is checkpointable), and a strict
 * changelog materializer that fails on a duplicated insert or a retraction of a row not there.
 */
import pg from 'pg';
import { expect } from 'vitest';
import { ROW_KIND_SHORT, type RowKindShort } from '../../../src/common/row-kind.js';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { PostgresCdcReader } from '../../../src/connectors/postgres-cdc/postgres-cdc-reader.js';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';

/** A change as the tests compare them. */
export type Change = [RowKindShort, Row];

/** Drops the replication slots of a database (cluster-wide objects), then the database. */
export async function dropDatabaseAndSlots(database: TestDatabase): Promise<void> {
  await dropSlots(database.client, database.name);
  await database.drop();
}

/** Drops every slot of `databaseName`, terminating a session still streaming from one. */
export async function dropSlots(client: pg.Client, databaseName: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const { rows } = await client.query<{ slot_name: string; active_pid: number | null }>('SELECT slot_name, active_pid FROM pg_replication_slots WHERE database = $1', [databaseName]);
    if (rows.length === 0) return;
    for (const row of rows) {
      if (row.active_pid !== null) await client.query('SELECT pg_terminate_backend($1)', [row.active_pid]);
      await client.query('SELECT pg_drop_replication_slot($1)', [row.slot_name]).catch(() => undefined);
    }
    if (attempt > 50) throw new Error(`could not drop the slots of ${databaseName}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Creates the test database. */
export function cdcDatabase(tag: string, baseUrl?: string): Promise<TestDatabase> {
  return createTestDatabase(tag, baseUrl);
}

/** A reader of `table` in the database at `url`. */
export function cdcReader(url: string, table: string, schema: Schema, primaryKey: readonly string[], options: Record<string, string> = {}): PostgresCdcReader {
  return new PostgresCdcReader({ kind: 'source', table, connector: 'postgres-cdc', options: { url, 'table-name': table, ...options }, schema, primaryKey }, {});
}

/** Polls like a source task, collecting changes, until `done(changes)` holds; fails after `timeoutMs`. */
export async function readUntil(reader: PostgresCdcReader, changes: Change[], done: (changes: readonly Change[]) => boolean, timeoutMs = 20_000, maxRecords = 1024): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const batch = new ChangeBatch();
  while (!done(changes)) {
    if (Date.now() > deadline) throw new Error(`timed out with ${changes.length} changes; last: ${JSON.stringify(changes.slice(-5), bigints)}`);
    batch.clear();
    let status = reader.poll(batch, maxRecords);
    if (typeof status !== 'string') status = await status;
    for (let i = 0; i < batch.size; i++) changes.push([ROW_KIND_SHORT[batch.kinds[i]!], batch.rows[i]!]);
    if (status === 'idle') await new Promise((r) => setTimeout(r, 5));
  }
}

/** Polls for `ms` more, collecting whatever still arrives (a late duplicate then fails the materializer). */
export async function readFor(reader: PostgresCdcReader, changes: Change[], ms: number): Promise<void> {
  const until = Date.now() + ms;
  await readUntil(reader, changes, () => Date.now() >= until, ms + 5_000);
}

/** JSON.stringify replacer for bigint (DECIMAL) values. */
export function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}

/**
 * The table a changelog leaves, keyed by `keyOf`: +I of a present key, and -U/-D of an absent key
 * or of a row that differs from the present one, throw (a duplicate or a loss); +U must follow -U.
 */
export function materialize(changes: readonly Change[], keyOf: (row: Row) => string, into = new Map<string, Row>()): Map<string, Row> {
  let retracted: string | undefined;
  for (const [kind, row] of changes) {
    const key = keyOf(row);
    const text = JSON.stringify(row, bigints);
    if (kind === '+I' || kind === '+U') {
      if (kind === '+U' && retracted !== key) throw new Error(`+U of ${text} does not follow a -U of its key`);
      if (into.has(key)) throw new Error(`${kind} of ${text}, but key ${key} is present: ${JSON.stringify(into.get(key), bigints)}`);
      into.set(key, row);
      retracted = undefined;
    } else {
      const present = into.get(key);
      if (present === undefined || JSON.stringify(present, bigints) !== text) throw new Error(`${kind} of ${text}, but the row of key ${key} is ${JSON.stringify(present, bigints)}`);
      into.delete(key);
      retracted = kind === '-U' ? key : undefined;
    }
  }
  return into;
}

/** Whether the materialized rows equal `expected` (any order). */
export function sameTable(table: Map<string, Row>, expected: readonly Row[]): boolean {
  return JSON.stringify(sortedText([...table.values()])) === JSON.stringify(sortedText(expected));
}

/** Expects the materialized rows to equal `expected` (any order). */
export function expectTable(table: Map<string, Row>, expected: readonly Row[]): void {
  expect(sortedText([...table.values()])).toEqual(sortedText(expected));
}

function sortedText(rows: readonly Row[]): string[] {
  return rows.map((r) => JSON.stringify(r, bigints)).sort();
}


/**
 * Creates `orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2))` with REPLICA
 * IDENTITY FULL and `rows` rows, in the database at `url`.
 */
export async function createOrdersTable(url: string, rows: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE orders (id bigint PRIMARY KEY, customer int NOT NULL, amount numeric(10,2) NOT NULL)');
    await client.query('ALTER TABLE orders REPLICA IDENTITY FULL');
    await client.query(`INSERT INTO orders SELECT g, g % 13, (g % 500) / 4.0 FROM generate_series(1, ${rows}) g`);
  } finally {
    await client.end();
  }
}

/**
 * Changes `orders` for `rounds` transactions of a few statements each — inserts, updates of the
 * amount and of the customer, primary-key changes, deletes — deterministically by `seed`. Stops
 * early when `stop()` says so; a statement failing because the server went away is retried.
 */
export async function churnOrders(url: string, rounds: number, seed: number, stop: () => boolean = () => false): Promise<void> {
  let state = seed >>> 0;
  const next = (n: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  let client: pg.Client | undefined;
  for (let round = 0; round < rounds && !stop(); round++) {
    const id = 1_000_000 * (seed + 1) + round;
    const statements = [
      `INSERT INTO orders VALUES (${id}, ${next(13)}, ${next(10_000) / 100})`,
      `UPDATE orders SET amount = amount + ${next(100) / 100} WHERE id % 97 = ${next(97)}`,
      `UPDATE orders SET customer = ${next(13)} WHERE id = (SELECT min(id) FROM orders WHERE id > ${next(3000)})`,
      `UPDATE orders SET id = id + 5000000 WHERE id = (SELECT max(id) FROM orders WHERE id < ${next(3000) + 1} AND id < 5000000)`,
      `DELETE FROM orders WHERE id = (SELECT min(id) FROM orders WHERE id > ${next(3000)})`,
    ];
    for (;;) {
      try {
        if (client === undefined) {
          client = new pg.Client({ connectionString: url });
          client.on('error', () => undefined);
          await client.connect();
        }
        await client.query('BEGIN');
        for (const statement of statements) if (next(3) > 0) await client.query(statement);
        await client.query('COMMIT');
        break;
      } catch {
        await client?.end().catch(() => undefined);
        client = undefined;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  await client?.end();
}

/** Waits until `(a) EXCEPT ALL (b)` and `(b) EXCEPT ALL (a)` are both empty at `url`; returns the differences left at the timeout. */
export async function waitUntilEqual(url: string, a: string, b: string, timeoutMs: number): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const missing = (await client.query(`(${a}) EXCEPT ALL (${b})`).catch(() => ({ rows: [{ error: 'not yet' }] }))).rows;
      const extra = (await client.query(`(${b}) EXCEPT ALL (${a})`).catch(() => ({ rows: [{ error: 'not yet' }] }))).rows;
      if ((missing.length === 0 && extra.length === 0) || Date.now() > deadline) return [...missing.map((r) => ({ missing: r })), ...extra.map((r) => ({ extra: r }))];
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await client.end();
  }
}

/** The batch answer and the sink's table, as the comparison reads them. */
export const BATCH_TOTALS = 'SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer';
export const SINK_TOTALS = 'SELECT customer, n, total FROM totals';

/** The job: orders captured from `url`, totals per customer written back to it. */
export function totalsScript(url: string, dir: string, slot: string): string {
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '100 ms';
    SET 'pipeline.name' = 'cdc-totals';
    CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED)
      WITH ('connector' = 'postgres-cdc', 'url' = '${url}', 'table-name' = 'public.orders', 'slot.name' = '${slot}');
    CREATE TABLE totals (customer INT, n BIGINT, total DECIMAL(38, 2), PRIMARY KEY (customer) NOT ENFORCED)
      WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'totals');
    INSERT INTO totals SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer;`;
}
