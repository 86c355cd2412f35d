/**
 * The postgres sink writer against a real PostgreSQL (the suite's cluster, one fresh database for
 * this file): table setup, upsert and append semantics, the two-phase commit protocol, recovery,
 * error messages, and the cost of a large checkpoint.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatDecimal } from '../../../src/common/decimal.js';
import { WeirError } from '../../../src/common/errors.js';
import { RowKind } from '../../../src/common/row-kind.js';
import { ChangeBatch, type Row } from '../../../src/common/row.js';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { PostgresSinkWriter, type PostgresTransactionData } from '../../../src/connectors/postgres/postgres-sink-writer.js';
import { gidName, parseGid } from '../../../src/connectors/postgres/transaction-ids.js';
import type { SinkSpec } from '../../../src/dataflow/job-graph.js';
import type { PreparedTransaction } from '../../../src/runtime/sink-writer.js';
import { createTestDatabase, type TestDatabase } from './pg-test-database.js';

let db: TestDatabase;
const writers: PostgresSinkWriter[] = [];
let tableCounter = 0;

beforeAll(async () => {
  db = await createTestDatabase('sink_writer');
});

afterEach(async () => {
  await Promise.allSettled(writers.splice(0).map((writer) => writer.close()));
});

afterAll(async () => {
  await db?.drop();
});

const keyed: Schema = [
  { name: 'id', type: SqlTypes.bigint(false) },
  { name: 'name', type: SqlTypes.string() },
];

/** A table name no other test uses. */
function freshTable(stem = 't'): string {
  return `${stem}_${++tableCounter}`;
}

function spec(table: string, schema: Schema = keyed, primaryKey: readonly string[] = ['id'], options: Record<string, string> = {}): SinkSpec {
  return { kind: 'sink', table, connector: 'postgres', options: { connector: 'postgres', url: db.url, ...options }, schema, primaryKey };
}

interface OpenSetup {
  readonly subtask?: number;
  readonly parallelism?: number;
  /** Opens the writer as the runtime does after a restore (recover follows). */
  readonly restored?: boolean;
  readonly warnings?: string[];
  readonly env?: NodeJS.ProcessEnv;
}

async function openWriter(sinkSpec: SinkSpec, setup: OpenSetup = {}): Promise<PostgresSinkWriter> {
  const writer = new PostgresSinkWriter(sinkSpec, setup.env ?? {});
  if (setup.restored) writer.initializeState();
  writers.push(writer);
  await writer.open({ subtask: setup.subtask ?? 0, parallelism: setup.parallelism ?? 1, warn: (m) => setup.warnings?.push(m) });
  return writer;
}

/** The error opening a writer fails with. */
async function openError(sinkSpec: SinkSpec, setup: OpenSetup = {}): Promise<WeirError> {
  const error = await openWriter(sinkSpec, setup).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeirError);
  return error as WeirError;
}

const batch = (...records: (readonly [RowKind, Row])[]): ChangeBatch => ChangeBatch.of(records);
const ins = (...row: unknown[]): readonly [RowKind, Row] => [RowKind.INSERT, row];
const ub = (...row: unknown[]): readonly [RowKind, Row] => [RowKind.UPDATE_BEFORE, row];
const ua = (...row: unknown[]): readonly [RowKind, Row] => [RowKind.UPDATE_AFTER, row];
const del = (...row: unknown[]): readonly [RowKind, Row] => [RowKind.DELETE, row];

async function tableRows(table: string, orderBy = 'id'): Promise<Record<string, unknown>[]> {
  return db.rows(`SELECT * FROM "${table}" ORDER BY ${orderBy}`);
}

async function markers(sink: string): Promise<{ subtask: number; checkpoint_id: string; gid: string }[]> {
  return db.rows('SELECT subtask, checkpoint_id, gid FROM weir.sink_commits WHERE sink = $1 ORDER BY checkpoint_id, subtask', [sink]);
}

async function checkpoint(writer: PostgresSinkWriter, id: number, ...records: (readonly [RowKind, Row])[]): Promise<PreparedTransaction> {
  if (records.length > 0) await writer.write(batch(...records));
  const transaction = await writer.prepareCommit(id);
  await writer.commit([transaction]);
  return transaction;
}

const gidOf = (transaction: PreparedTransaction): string => (transaction.data as PostgresTransactionData).gid!;

/** The prepared gids of one sink (named by the sink's table, as by default), so that tests ignore each other's. */
async function preparedOf(sink: string): Promise<string[]> {
  return (await db.preparedGids()).filter((gid) => parseGid(gid)?.sink === gidName(sink));
}

describe('table setup', () => {
  it('creates a missing table with Flink types mapped, NOT NULL and the primary key, plus the bookkeeping table', async () => {
    const table = freshTable('Mixed Case');
    const schema: Schema = [
      { name: 'Order Id', type: SqlTypes.bigint(false) },
      { name: 'flag', type: SqlTypes.boolean() },
      { name: 'tiny', type: SqlTypes.tinyint() },
      { name: 'small', type: SqlTypes.smallint() },
      { name: 'i', type: SqlTypes.int(false) },
      { name: 'f', type: SqlTypes.float() },
      { name: 'd', type: SqlTypes.double() },
      { name: 'amount', type: SqlTypes.decimal(12, 3) },
      { name: 'code', type: SqlTypes.char(4) },
      { name: 'label', type: SqlTypes.varchar(20) },
      { name: 'Note', type: SqlTypes.string() },
      { name: 'day', type: SqlTypes.date() },
      { name: 'at', type: SqlTypes.time(3) },
      { name: 'ts', type: SqlTypes.timestamp(3) },
      { name: 'ltz', type: SqlTypes.timestampLtz(6) },
      { name: 'r', type: SqlTypes.row([{ name: 'a', type: SqlTypes.int() }]) },
      { name: 'arr', type: SqlTypes.array(SqlTypes.int()) },
      { name: 'm', type: SqlTypes.map(SqlTypes.string(), SqlTypes.int()) },
    ];
    await openWriter(spec(table, schema, ['Order Id', 'i']));
    const columns = await db.rows(
      `SELECT column_name, data_type, character_maximum_length AS len, numeric_precision AS p, numeric_scale AS s, datetime_precision AS dp, is_nullable
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    const shown = columns.map((c) => [c.column_name, c.data_type, c.data_type === 'numeric' ? `${c.p},${c.s}` : (c.len ?? c.dp), c.is_nullable].join(' | '));
    expect(shown).toEqual([
      'Order Id | bigint |  | NO',
      'flag | boolean |  | YES',
      'tiny | smallint |  | YES',
      'small | smallint |  | YES',
      'i | integer |  | NO',
      'f | real |  | YES',
      'd | double precision |  | YES',
      'amount | numeric | 12,3 | YES',
      'code | character | 4 | YES',
      'label | character varying | 20 | YES',
      'Note | text |  | YES',
      'day | date | 0 | YES',
      'at | time without time zone | 3 | YES',
      'ts | timestamp without time zone | 3 | YES',
      'ltz | timestamp with time zone | 6 | YES',
      'r | jsonb |  | YES',
      'arr | jsonb |  | YES',
      'm | jsonb |  | YES',
    ]);
    const key = await db.rows(
      `SELECT k.column_name FROM information_schema.table_constraints c
       JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name AND k.table_name = c.table_name
       WHERE c.table_name = $1 AND c.constraint_type = 'PRIMARY KEY' ORDER BY k.ordinal_position`,
      [table],
    );
    expect(key.map((k) => k.column_name)).toEqual(['Order Id', 'i']);
    const log = await db.rows(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'weir' AND table_name = 'sink_commits' ORDER BY ordinal_position`,
    );
    expect(log.map((c) => `${c.column_name} ${c.data_type}`)).toEqual([
      'job text',
      'sink text',
      'subtask integer',
      'checkpoint_id bigint',
      'committed_at timestamp with time zone',
      'gid text',
    ]);
  });

  it("creates the schema of a qualified 'table-name' and keeps case and spaces in both parts", async () => {
    const name = freshTable('Weird "Name"');
    const writer = await openWriter(spec('weir_table', keyed, ['id'], { 'table-name': `"My Schema"."${name.replace(/"/g, '""')}"` }));
    await checkpoint(writer, 1, ins(1, 'a'));
    expect(await db.rows(`SELECT id, name FROM "My Schema"."${name.replace(/"/g, '""')}"`)).toEqual([{ id: '1', name: 'a' }]);
  });

  it('defaults to the schema the search path resolves to', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    await checkpoint(writer, 1, ins(7, 'x'));
    expect(await db.rows(`SELECT table_schema FROM information_schema.tables WHERE table_name = $1`, [table])).toEqual([{ table_schema: 'public' }]);
  });

  it('writes into an existing table whose columns are wider than needed and that has extra nullable columns', async () => {
    const table = freshTable();
    await db.client.query(`CREATE TABLE "${table}" (extra text, id numeric(25,0) PRIMARY KEY, name varchar(100), created timestamptz DEFAULT now() NOT NULL)`);
    const writer = await openWriter(spec(table, [
      { name: 'id', type: SqlTypes.int(false) },
      { name: 'name', type: SqlTypes.varchar(10) },
    ]));
    await checkpoint(writer, 1, ins(1, 'one'));
    expect(await db.rows(`SELECT id, name, extra FROM "${table}"`)).toEqual([{ id: '1', name: 'one', extra: null }]);
  });

  it('refuses an existing table that cannot hold a column, naming it', async () => {
    const table = freshTable();
    await db.client.query(`CREATE TABLE "${table}" (id bigint PRIMARY KEY, name integer)`);
    const wrongType = await openError(spec(table));
    expect(wrongType.message).toBe(`postgres sink '${table}': column "name" of public.${table} is integer, which cannot hold STRING`);
    expect(wrongType.hint).toBe('change the column to text, or drop the table so that weir creates it');
    const narrow = freshTable();
    await db.client.query(`CREATE TABLE "${narrow}" (id bigint PRIMARY KEY, amount numeric(5,2), ts timestamp(0))`);
    const error = await openError(spec(narrow, [
      { name: 'id', type: SqlTypes.bigint(false) },
      { name: 'amount', type: SqlTypes.decimal(10, 2) },
    ]));
    expect(error.message).toBe(`postgres sink '${narrow}': column "amount" of public.${narrow} is numeric(5,2), which cannot hold DECIMAL(10, 2)`);
    expect(error.hint).toBe('change the column to numeric(10,2), or drop the table so that weir creates it');
    await expect(openWriter(spec(narrow, [
      { name: 'id', type: SqlTypes.bigint(false) },
      { name: 'ts', type: SqlTypes.timestamp(3) },
    ]))).rejects.toThrow(`column "ts" of public.${narrow} is timestamp(0) without time zone, which cannot hold TIMESTAMP(3)`);
  });

  it('refuses an existing table without a column of the sink', async () => {
    const table = freshTable();
    await db.client.query(`CREATE TABLE "${table}" (id bigint PRIMARY KEY)`);
    const error = await openError(spec(table));
    expect(error.message).toBe(`postgres sink '${table}': table public.${table} has no column "name" (STRING)`);
    expect(error.hint).toBe('add the column, or drop the table so that weir creates it');
  });

  it('refuses an upsert into an existing table without a unique key on the primary key', async () => {
    const table = freshTable();
    await db.client.query(`CREATE TABLE "${table}" (id bigint, name text, UNIQUE (id, name))`);
    const error = await openError(spec(table));
    expect(error.message).toBe(
      `postgres sink '${table}': table public.${table} has no primary key or unique index on ("id"), which upserts by the sink's primary key need`,
    );
    expect(error.hint).toBe(`add PRIMARY KEY ("id") to the table, or drop it so that weir creates it`);
    const unique = freshTable();
    await db.client.query(`CREATE TABLE "${unique}" (id bigint NOT NULL, name text, UNIQUE (id))`);
    await expect(openWriter(spec(unique))).resolves.toBeInstanceOf(PostgresSinkWriter);
  });

  it('refuses an existing table with a NOT NULL column the sink does not write', async () => {
    const table = freshTable();
    await db.client.query(`CREATE TABLE "${table}" (id bigint PRIMARY KEY, name text, owner text NOT NULL)`);
    await expect(openWriter(spec(table))).rejects.toThrow(
      `postgres sink '${table}': column "owner" of public.${table} is NOT NULL without a default, and the sink does not write it`,
    );
  });

  it('refuses a view in place of the table', async () => {
    const table = freshTable();
    await db.client.query(`CREATE VIEW "${table}" AS SELECT 1::bigint AS id, 'a'::text AS name`);
    await expect(openWriter(spec(table))).rejects.toThrow(`postgres sink '${table}': public.${table} is not a table (relkind 'v')`);
  });

  it('sets up concurrently opened subtasks without racing', async () => {
    const table = freshTable();
    await Promise.all([0, 1, 2, 3].map((subtask) => openWriter(spec(table), { subtask, parallelism: 4 })));
    expect(await db.rows(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = $1`, [table])).toEqual([{ n: 1 }]);
  });
});

describe('upsert sink', () => {
  it('applies the net change per key within one checkpoint', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    await writer.write(batch(ins(1, 'a'), ins(2, 'b'), ins(3, 'c'), ub(1, 'a'), ua(1, 'a2'), del(2, 'b')));
    await writer.write(batch(ub(1, 'a2'), ua(1, 'a3'), ins(2, 'b2'), ub(3, 'c'), ins(4, 'd'), del(4, 'd')));
    await writer.commit([await writer.prepareCommit(1)]);
    expect(await tableRows(table)).toEqual([
      { id: '1', name: 'a3' },
      { id: '2', name: 'b2' },
    ]);
  });

  it('updates and deletes rows of earlier checkpoints', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    await checkpoint(writer, 1, ins(1, 'a'), ins(2, 'b'), ins(3, 'c'));
    await checkpoint(writer, 2, ub(1, 'a'), ua(1, 'A'), del(2, 'b'), ua(3, 'C'));
    expect(await tableRows(table)).toEqual([
      { id: '1', name: 'A' },
      { id: '3', name: 'C' },
    ]);
    await checkpoint(writer, 3, del(1, 'A'), ins(2, 'again'));
    expect(await tableRows(table)).toEqual([
      { id: '2', name: 'again' },
      { id: '3', name: 'C' },
    ]);
  });

  it('upserts into a table whose columns are all key columns', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, ['id', 'name']));
    await checkpoint(writer, 1, ins(1, 'a'), ins(1, 'b'));
    await checkpoint(writer, 2, ins(1, 'a'), del(1, 'b'), ins(2, 'z'));
    expect(await tableRows(table, 'id, name')).toEqual([
      { id: '1', name: 'a' },
      { id: '2', name: 'z' },
    ]);
  });

  it('writes into the open transaction once the buffer is full, still invisible until commit', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, ['id'], { 'sink.buffer-flush.max-rows': '2' }));
    expect(writer.write(batch(ins(1, 'a')))).toBeUndefined();
    const flushing = writer.write(batch(ins(2, 'b')));
    expect(flushing).toBeInstanceOf(Promise);
    await flushing;
    await writer.write(batch(ub(1, 'a'), ua(1, 'a2'), del(2, 'b')));
    expect(await tableRows(table)).toEqual([]);
    await writer.commit([await writer.prepareCommit(1)]);
    expect(await tableRows(table)).toEqual([{ id: '1', name: 'a2' }]);
  });

  it('takes composite keys and keys of every text-like and temporal type', async () => {
    const table = freshTable();
    const schema: Schema = [
      { name: 'k1', type: SqlTypes.string(false) },
      { name: 'k2', type: SqlTypes.timestamp(3, false) },
      { name: 'k3', type: SqlTypes.decimal(10, 2, false) },
      { name: 'v', type: SqlTypes.int() },
    ];
    const writer = await openWriter(spec(table, schema, ['k1', 'k2', 'k3']));
    await checkpoint(writer, 1, ins('a', 0, 100n, 1), ins('a', 1, 100n, 2), ins('a', 0, 101n, 3), ins('b"\\', 0, 100n, 4));
    await checkpoint(writer, 2, ua('a', 0, 100n, 10), del('a', 1, 100n, 2), ua('b"\\', 0, 100n, 40));
    expect(await db.rows(`SELECT k1, k2::text, k3::text, v FROM "${table}" ORDER BY k1, k2, k3`)).toEqual([
      { k1: 'a', k2: '1970-01-01 00:00:00', k3: '1.00', v: 10 },
      { k1: 'a', k2: '1970-01-01 00:00:00', k3: '1.01', v: 3 },
      { k1: 'b"\\', k2: '1970-01-01 00:00:00', k3: '1.00', v: 40 },
    ]);
  });
});

describe('append sink', () => {
  it('inserts every row, duplicates included', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, []));
    await checkpoint(writer, 1, ins(1, 'a'), ins(1, 'a'), ins(2, null));
    await checkpoint(writer, 2, ins(1, 'a'));
    expect(await db.rows(`SELECT id, name FROM "${table}" ORDER BY id`)).toEqual([
      { id: '1', name: 'a' },
      { id: '1', name: 'a' },
      { id: '1', name: 'a' },
      { id: '2', name: null },
    ]);
  });

  it('refuses deletes and updates with the precise error', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, []));
    expect(() => writer.write(batch(ins(1, 'a'), del(1, 'a')))).toThrow(
      new WeirError(
        'CONNECTOR_ERROR',
        `postgres sink '${table}' has no primary key, so it can only insert rows, but received a delete (-D); declare PRIMARY KEY (...) NOT ENFORCED on '${table}' to write an updating query`,
        { permanent: true },
      ),
    );
    expect(() => writer.write(batch(ub(1, 'a')))).toThrow(`postgres sink '${table}' has no primary key, so it can only insert rows, but received an update (-U)`);
    expect(() => writer.write(batch(ua(1, 'a')))).toThrow('received an update (+U)');
  });
});

describe('two-phase commit', () => {
  it('keeps prepared rows invisible until COMMIT PREPARED, then shows them with their marker', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, ['id'], { 'weir.job': 'job_1' }), { subtask: 0, parallelism: 1 });
    await writer.write(batch(ins(1, 'a'), ins(2, 'b')));
    const transaction = await writer.prepareCommit(5);
    const data = transaction.data as PostgresTransactionData;
    expect(transaction.checkpointId).toBe(5);
    expect(data).toMatchObject({ job: 'job_1', sink: table, subtask: 0 });
    expect(data.gid).toMatch(new RegExp(`^weir1\\.job-1-[0-9a-f]{8}\\.${table.replace('_', '-')}-[0-9a-f]{8}\\.0\\.5\\.[0-9a-f]{12}$`));
    expect(parseGid(data.gid!)).toMatchObject({ subtask: 0, checkpointId: 5 });

    expect(await tableRows(table)).toEqual([]);
    expect(await preparedOf(table)).toEqual([data.gid]);
    expect(await markers(table)).toEqual([]);

    await writer.commit([transaction]);
    expect(await tableRows(table)).toEqual([
      { id: '1', name: 'a' },
      { id: '2', name: 'b' },
    ]);
    expect(await preparedOf(table)).toEqual([]);
    expect(await db.rows(`SELECT job, sink, subtask, checkpoint_id, gid FROM weir.sink_commits WHERE sink = $1`, [table])).toEqual([
      { job: 'job_1', sink: table, subtask: 0, checkpoint_id: '5', gid: data.gid },
    ]);
  });

  it('prepares an empty checkpoint with just its marker', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    const transaction = await writer.prepareCommit(1);
    expect(await preparedOf(table)).toEqual([gidOf(transaction)]);
    await writer.commit([transaction]);
    expect(await markers(table)).toEqual([{ subtask: 0, checkpoint_id: '1', gid: gidOf(transaction) }]);
    expect(await tableRows(table)).toEqual([]);
  });

  it('uses a new gid for every checkpoint and every writer run', async () => {
    const table = freshTable();
    const first = await openWriter(spec(table));
    const a = await first.prepareCommit(1);
    const b = await first.prepareCommit(2);
    await first.commit([a]);
    await first.close();
    const second = await openWriter(spec(table), { restored: true });
    await second.recover([], 1);
    const c = await second.prepareCommit(2);
    const gids = [a, b, c].map(gidOf);
    expect(new Set(gids).size).toBe(3);
    expect(parseGid(gids[0]!)!.epoch).toBe(parseGid(gids[1]!)!.epoch);
    expect(parseGid(gids[1]!)!.epoch).not.toBe(parseGid(gids[2]!)!.epoch);
    expect(await preparedOf(table)).toEqual([gids[2]]);
    await second.commit([c]);
  });

  it('commits idempotently: a second commit of the same transaction finds its marker', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    const transaction = await checkpoint(writer, 1, ins(1, 'a'));
    await expect(writer.commit([transaction])).resolves.toBeUndefined();
    const other = await openWriter(spec(table), { restored: true });
    await expect(other.recover([transaction], 1)).resolves.toBeUndefined();
    expect(await tableRows(table)).toEqual([{ id: '1', name: 'a' }]);
  });

  it('fails loudly when a prepared transaction was rolled back behind its back', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    await writer.write(batch(ins(1, 'a')));
    const transaction = await writer.prepareCommit(3);
    const gid = gidOf(transaction);
    await db.client.query(`ROLLBACK PREPARED '${gid}'`);
    await expect(writer.commit([transaction])).rejects.toThrow(
      new WeirError('CONNECTOR_ERROR', `postgres sink '${table}': prepared transaction ${gid} of checkpoint 3 is gone and its marker row is missing: its rows were lost`),
    );
    expect(await tableRows(table)).toEqual([]);
  });

  it('fails loudly on a repeated commit when the marker row was deleted', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    const transaction = await checkpoint(writer, 4, ins(1, 'a'));
    await db.client.query('DELETE FROM weir.sink_commits WHERE gid = $1', [gidOf(transaction)]);
    await expect(writer.commit([transaction])).rejects.toThrow(`prepared transaction ${gidOf(transaction)} of checkpoint 4 is gone and its marker row is missing: its rows were lost`);
  });

  it('does not take an old marker of the same checkpoint (a rerun from scratch) for a commit', async () => {
    const table = freshTable();
    const first = await openWriter(spec(table));
    await checkpoint(first, 1, ins(1, 'first run'));
    const second = await openWriter(spec(table), { restored: true });
    await second.write(batch(ins(2, 'second run')));
    const transaction = await second.prepareCommit(1);
    await db.client.query(`ROLLBACK PREPARED '${gidOf(transaction)}'`);
    await expect(second.commit([transaction])).rejects.toThrow('its rows were lost');
    const rerun = await second.prepareCommit(1);
    await second.commit([rerun]);
    expect(await markers(table)).toEqual([{ subtask: 0, checkpoint_id: '1', gid: gidOf(rerun) }]);
  });

  it('commits several checkpoints in checkpoint order', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    await writer.write(batch(ins(1, 'a')));
    const first = await writer.prepareCommit(1);
    await writer.write(batch(ins(2, 'b')));
    const second = await writer.prepareCommit(2);
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await writer.commit([second, first]);
      const commits = query.mock.calls.map((call) => String(call[0])).filter((text) => text.startsWith('COMMIT PREPARED'));
      expect(commits).toEqual([`COMMIT PREPARED '${gidOf(first)}'`, `COMMIT PREPARED '${gidOf(second)}'`]);
    } finally {
      query.mockRestore();
    }
    expect(await tableRows(table)).toEqual([
      { id: '1', name: 'a' },
      { id: '2', name: 'b' },
    ]);
  });

  it('rolls back a transaction that was not prepared when closed', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, ['id'], { 'sink.buffer-flush.max-rows': '1' }));
    await writer.write(batch(ins(1, 'a')));
    expect(await db.rows(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).toEqual([{ n: 1 }]);
    await writer.close();
    expect(await tableRows(table)).toEqual([]);
    expect(await db.rows(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).toEqual([{ n: 0 }]);
  });

  it('waits for the prepared transaction of a row it writes again, and a close cuts that wait off', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, ['id'], { 'sink.buffer-flush.max-rows': '1' }));
    await writer.write(batch(ins(1, 'a')));
    const first = await writer.prepareCommit(1);
    const blocked = writer.write(batch(ua(1, 'b')));
    expect(blocked).toBeInstanceOf(Promise);
    const outcome = (blocked as Promise<void>).then(
      () => 'written',
      (error: unknown) => String(error),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = performance.now();
    await writer.close();
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await outcome).toMatch(new RegExp(`^WeirError: postgres sink '${table}' could not write into public\\.${table}`));
    expect(await preparedOf(table)).toEqual([gidOf(first)]);
    const other = await openWriter(spec(table), { restored: true });
    await other.recover([first], 1);
    expect(await tableRows(table)).toEqual([{ id: '1', name: 'a' }]);
  });
});

describe('recovery', () => {
  it('commits the restored pending transactions and those ≤ the restored checkpoint, rolls back the later ones, and leaves none', async () => {
    const table = freshTable();
    const sinkSpec = spec(table, keyed, ['id'], { 'weir.job': 'recovering job' });
    const crashed = [await openWriter(sinkSpec, { subtask: 0, parallelism: 2 }), await openWriter(sinkSpec, { subtask: 1, parallelism: 2 })];
    const prepared: PreparedTransaction[][] = [[], []];
    for (const checkpointId of [1, 2, 3]) {
      for (const [subtask, writer] of crashed.entries()) {
        await writer.write(batch(ins(checkpointId * 10 + subtask, `c${checkpointId}`)));
        prepared[subtask]!.push(await writer.prepareCommit(checkpointId));
      }
    }
    await Promise.all(crashed.map((writer) => writer.close()));
    expect(await preparedOf(table)).toHaveLength(6);

    // Checkpoint 2 completed, but its notification was lost: the restored state still lists 1 and 2 as pending.
    const pending = [prepared[0]![0]!, prepared[1]![0]!, prepared[0]![1]!];
    const warnings: string[] = [];
    const restored = [
      await openWriter(sinkSpec, { subtask: 0, parallelism: 2, restored: true, warnings }),
      await openWriter(sinkSpec, { subtask: 1, parallelism: 2, restored: true, warnings }),
    ];
    expect(await preparedOf(table)).toHaveLength(6);
    await restored[1]!.recover([], 2);
    expect(await preparedOf(table)).toHaveLength(6);
    await restored[0]!.recover(pending, 2);

    expect(await preparedOf(table)).toEqual([]);
    expect(await tableRows(table)).toEqual([
      { id: '10', name: 'c1' },
      { id: '11', name: 'c1' },
      { id: '20', name: 'c2' },
      { id: '21', name: 'c2' },
    ]);
    expect((await markers(table)).map((m) => `${m.checkpoint_id}/${m.subtask}`)).toEqual(['1/0', '1/1', '2/0', '2/1']);
    expect(warnings).toEqual([
      `postgres sink '${table}': committed ${gidOf(prepared[1]![1]!)}, prepared for completed checkpoint 2 whose commit had not happened`,
      `postgres sink '${table}': rolled back 2 prepared transaction(s) of checkpoints after the restored checkpoint 2: ${gidOf(prepared[0]![2]!)}, ${gidOf(prepared[1]![2]!)}`,
    ]);

    await restored[0]!.recover(pending, 2);
    expect(await preparedOf(table)).toEqual([]);
  });

  it("leaves other sinks' and other jobs' prepared transactions alone, even when their names only differ by a LIKE wildcard", async () => {
    const table = freshTable('a_b');
    const neighbour = await openWriter(spec(table, keyed, ['id'], { 'weir.job': 'job', 'weir.sink': 'aXb' }));
    const kept = await neighbour.prepareCommit(9);
    const writer = await openWriter(spec(table, keyed, ['id'], { 'weir.job': 'job', 'weir.sink': 'a_b' }), { restored: true });
    await writer.prepareCommit(9);
    await writer.recover([], 1);
    expect(await preparedOf('aXb')).toEqual([gidOf(kept)]);
    expect(await preparedOf('a_b')).toEqual([]);
    await neighbour.commit([kept]);
  });

  it('rolls back what an earlier run left prepared when a job starts without a restore', async () => {
    const table = freshTable();
    const crashed = await openWriter(spec(table));
    await crashed.write(batch(ins(1, 'lost')));
    const leftover = await crashed.prepareCommit(1);
    await crashed.close();
    const warnings: string[] = [];
    const fresh = await openWriter(spec(table), { warnings });
    expect(await preparedOf(table)).toEqual([]);
    expect(warnings).toEqual([`postgres sink '${table}': rolled back 1 prepared transaction(s) left by an earlier run: ${gidOf(leftover)}`]);
    await checkpoint(fresh, 1, ins(1, 'fresh'));
    expect(await tableRows(table)).toEqual([{ id: '1', name: 'fresh' }]);
  });

  it('refuses to run behind its own output: a restore older than the last checkpoint it committed names both', async () => {
    const table = freshTable();
    const first = await openWriter(spec(table));
    for (const id of [1, 2, 3, 4]) await checkpoint(first, id, ins(id, `c${id}`));
    await first.write(batch(ins(5, 'prepared')));
    const leftover = await first.prepareCommit(5);
    await first.close();
    const restored = await openWriter(spec(table), { restored: true });
    const error = await restored.recover([], 2).then(
      () => undefined,
      (e: unknown) => e as WeirError,
    );
    expect(error?.code).toBe('CHECKPOINT_ERROR');
    expect(error?.permanent).toBe(true);
    expect(error?.message).toMatch(`postgres sink '${table}' has committed checkpoint 4 into public.${table} at postgres://`);
    expect(error?.message).toMatch(
      /\(its rows in weir\.sink_commits\), but the job is being restored from checkpoint 2: running from there would write the output of checkpoints 3 to 4 again$/,
    );
    expect(error?.hint).toContain('restore checkpoint 4 or a later one');
    expect(await preparedOf(table), 'nothing is resolved before the refusal').toEqual([gidOf(leftover)]);
    await restored.recover([], 4);
    expect(await preparedOf(table)).toEqual([]);
    expect(await tableRows(table)).toHaveLength(4);
  });

  it('a fresh start begins the commit history anew, so a later restore of its own checkpoints is accepted', async () => {
    const table = freshTable();
    const earlier = await openWriter(spec(table));
    for (const id of [1, 2, 3, 4, 5]) await checkpoint(earlier, id);
    await earlier.close();
    const fresh = await openWriter(spec(table));
    expect(await markers(table)).toEqual([]);
    await checkpoint(fresh, 1, ins(1, 'fresh'));
    await checkpoint(fresh, 2, ins(2, 'fresh'));
    await fresh.close();
    const restored = await openWriter(spec(table), { restored: true });
    await restored.recover([], 2);
    expect((await markers(table)).map((m) => m.checkpoint_id)).toEqual(['1', '2']);
  });

  it('refuses a pending transaction that is not one of a postgres sink', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table), { restored: true });
    await expect(writer.recover([{ checkpointId: 1, data: { gid: "x'; DROP TABLE y; --", job: 'j', sink: 's', subtask: 0 } }], 1)).rejects.toThrow(
      `postgres sink '${table}' cannot commit checkpoint 1: its transaction is not one of a postgres sink`,
    );
    const gid = (await writer.prepareCommit(2)).data as PostgresTransactionData;
    await expect(writer.commit([{ checkpointId: 3, data: gid }])).rejects.toThrow('cannot commit checkpoint 3');
  });
});

describe('at-least-once and end of input', () => {
  it('commits at each barrier without two-phase commit', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, keyed, ['id'], { 'sink.semantic': 'at-least-once' }));
    await writer.write(batch(ins(1, 'a')));
    const transaction = await writer.prepareCommit(1);
    expect(transaction.data).toEqual({ gid: null, job: table, sink: table, subtask: 0 });
    expect(await tableRows(table)).toEqual([{ id: '1', name: 'a' }]);
    expect(await preparedOf(table)).toEqual([]);
    await writer.commit([transaction]);
    await writer.recover([transaction], 1);
    expect(await markers(table)).toEqual([]);
  });

  it('commits everything at the end of input without checkpoints', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table));
    await writer.write(batch(ins(1, 'a'), ins(2, 'b'), del(1, 'a')));
    await writer.flush();
    expect(await tableRows(table)).toEqual([{ id: '2', name: 'b' }]);
    expect(await preparedOf(table)).toEqual([]);
    await writer.flush();
  });
});

describe('servers and their errors', () => {
  /** The machine's own server: max_prepared_transactions = 0. */
  const localUrl = 'postgres://postgres@127.0.0.1:5432/test';

  it('refuses exactly-once on a server with max_prepared_transactions = 0, at startup and with a hint', async () => {
    const error = await openError(spec('no_2pc', keyed, ['id'], { url: localUrl }));
    expect(error).toBeInstanceOf(WeirError);
    expect(error.code).toBe('CONNECTOR_ERROR');
    expect(error.message).toBe(
      "postgres sink 'no_2pc': the server at postgres://postgres@127.0.0.1:5432/test has max_prepared_transactions = 0, so exactly-once (two-phase commit) is impossible",
    );
    expect(error.hint).toBe("set max_prepared_transactions (e.g. 64) in postgresql.conf and restart the server, or use 'sink.semantic' = 'at-least-once'");
  });

  it('masks the password of the URL in messages', async () => {
    const error = await openError(spec('no_2pc', keyed, ['id'], { url: 'postgres://postgres:s3cret-pw@127.0.0.1:5432/test' }));
    expect(error.message).toContain('the server at postgres://postgres:***@127.0.0.1:5432/test has max_prepared_transactions = 0');
    expect(error.message).not.toContain('s3cret-pw');
    const refused = await openError(spec('t', keyed, ['id'], { url: 'postgres://u:hunter2-pw@127.0.0.1:1/db' }));
    expect(refused.message).toBe("postgres sink 't' could not connect to postgres://u:***@127.0.0.1:1/db: connect ECONNREFUSED 127.0.0.1:1");
    expect(JSON.stringify(refused)).not.toContain('hunter2-pw');
  });

  it('writes at least once to a server without prepared transactions', async () => {
    const table = `weir_alo_${randomBytes(4).toString('hex')}`;
    const writer = await openWriter(spec(table, keyed, ['id'], { url: localUrl, 'sink.semantic': 'at-least-once' }));
    const local = new pg.Client({ connectionString: localUrl });
    await local.connect();
    try {
      await writer.write(batch(ins(1, 'a')));
      await writer.prepareCommit(1);
      expect((await local.query(`SELECT id, name FROM "${table}"`)).rows).toEqual([{ id: '1', name: 'a' }]);
      expect((await local.query('SELECT count(*)::int AS n FROM pg_prepared_xacts')).rows).toEqual([{ n: 0 }]);
    } finally {
      await writer.close();
      await local.query(`DROP TABLE IF EXISTS "${table}"`);
      await local.end();
    }
  });

  it('takes the server from DATABASE_URL, else from the PG* variables', async () => {
    const table = freshTable();
    const sinkSpec: SinkSpec = { ...spec(table), options: { connector: 'postgres' } };
    const fromUrl = await openWriter(sinkSpec, { env: { DATABASE_URL: db.url } });
    await checkpoint(fromUrl, 1, ins(1, 'from DATABASE_URL'));
    const url = new URL(db.url);
    const fromVariables = await openWriter(sinkSpec, {
      env: { PGHOST: url.hostname, PGPORT: url.port, PGUSER: 'postgres', PGDATABASE: url.pathname.slice(1) },
      restored: true,
    });
    await checkpoint(fromVariables, 2, ua(1, 'from PG*'));
    expect(await tableRows(table)).toEqual([{ id: '1', name: 'from PG*' }]);
  });

  it('names the sink, the checkpoint and the server error when a write fails', async () => {
    const table = freshTable();
    const writer = await openWriter(spec(table, [
      { name: 'id', type: SqlTypes.bigint(false) },
      { name: 'name', type: SqlTypes.varchar(3) },
    ]));
    await writer.write(batch(ins(1, 'much too long')));
    await expect(writer.prepareCommit(1)).rejects.toThrow(
      `postgres sink '${table}' could not prepare checkpoint 1 as weir1.${gidName(table)}.${gidName(table)}.0.1.`,
    );
    await expect(writer.prepareCommit(2)).rejects.toThrow('value too long for type character varying(3) (SQLSTATE 22001)');
    await writer.close();
    expect(await preparedOf(table)).toEqual([]);
  });
});

describe('a large checkpoint', () => {
  const rows = 100_000;

  async function measure(primaryKey: readonly string[]): Promise<{ statements: number; millis: number }> {
    const table = freshTable();
    const schema: Schema = [
      { name: 'id', type: SqlTypes.bigint(false) },
      { name: 'auction', type: SqlTypes.bigint() },
      { name: 'price', type: SqlTypes.decimal(12, 2) },
      { name: 'ts', type: SqlTypes.timestamp(3) },
    ];
    const writer = await openWriter(spec(table, schema, primaryKey, { 'sink.buffer-flush.max-rows': String(rows) }));
    const changes = new ChangeBatch();
    for (let i = 0; i < rows; i++) changes.push(RowKind.INSERT, [i, i % 1000, BigInt(i * 7), 1_700_000_000_000 + i]);
    const query = vi.spyOn(pg.Client.prototype, 'query');
    const started = performance.now();
    try {
      await writer.write(changes);
      await writer.commit([await writer.prepareCommit(1)]);
      return { statements: query.mock.calls.length, millis: performance.now() - started };
    } finally {
      query.mockRestore();
      const total = formatDecimal((7n * BigInt(rows) * BigInt(rows - 1)) / 2n, 2);
      expect(await db.rows(`SELECT count(*)::int AS n, sum(price)::text AS total FROM "${table}"`)).toEqual([{ n: rows, total }]);
    }
  }

  it('upserts 100,000 changes in a bounded number of statements', async () => {
    const { statements, millis } = await measure(['id']);
    console.log(`postgres sink: 100k-row upsert checkpoint in ${millis.toFixed(0)} ms (${Math.round(rows / (millis / 1000))} rows/s), ${statements} statements`);
    expect(statements).toBeLessThanOrEqual(16);
  });

  it('appends 100,000 rows in a bounded number of statements', async () => {
    const { statements, millis } = await measure([]);
    console.log(`postgres sink: 100k-row append checkpoint in ${millis.toFixed(0)} ms (${Math.round(rows / (millis / 1000))} rows/s), ${statements} statements`);
    expect(statements).toBeLessThanOrEqual(16);
  });
});
