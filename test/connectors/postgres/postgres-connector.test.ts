/**
 * The postgres connector as users meet it: its descriptor and DDL-time validation, and jobs that
 * write into PostgreSQL through the engine, with and without checkpoints, across a stop with
 * savepoint and a resume.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Schema } from '../../../src/common/schema.js';
import { SqlTypes } from '../../../src/common/sql-type.js';
import { createBuiltinConnectors } from '../../../src/connectors/builtin-connectors.js';
import { postgresConnector, postgresDescriptor } from '../../../src/connectors/postgres/postgres-connector.js';
import { PostgresSinkWriter } from '../../../src/connectors/postgres/postgres-sink-writer.js';
import { createEngine } from '../../../src/engine/engine.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import type { StatementResult } from '../../../src/engine/statement-result.js';
import { createTestDatabase, type TestDatabase } from './pg-test-database.js';

const schema: Schema = [
  { name: 'id', type: SqlTypes.bigint(false) },
  { name: 'v', type: SqlTypes.string() },
];

const validate = (options: Record<string, string>, columns: Schema = schema): void =>
  postgresDescriptor.validate!(new Map(Object.entries({ connector: 'postgres', ...options })), columns, []);

describe('postgres descriptor', () => {
  it('is an upsert sink and a lookup table registered with the built-in connectors', () => {
    expect(postgresDescriptor.sink?.accepts).toBe('upsert');
    expect(postgresDescriptor.source).toBeUndefined();
    expect(createBuiltinConnectors()).toContain(postgresConnector);
    expect(postgresDescriptor.lookup).toBe(true);
    expect(postgresDescriptor.options.map((o) => o.key)).toEqual([
      'url',
      'table-name',
      'sink.semantic',
      'sink.buffer-flush.max-rows',
      'sink.parallelism',
      'sink.transaction-group',
      'sink.prepared-transaction.warn-age',
      'lookup.cache.max-rows',
      'lookup.cache.ttl',
      'lookup.cache.caching-missing-key',
      'lookup.max-retries',
    ]);
  });

  it('validates options at DDL time, never showing a password', () => {
    expect(() => validate({})).not.toThrow();
    expect(() => validate({ url: 'postgres://u:pw@h/db', 'table-name': 'a.b', 'sink.semantic': 'at-least-once' })).not.toThrow();
    expect(() => validate({ 'table-nme': 'x' })).toThrow("postgres does not support option 'table-nme'; did you mean 'table-name'?");
    expect(() => validate({ url: 'http://u:topsecret@h/db' })).toThrow("postgres option 'url' must be a URL such as postgres://user@host:5432/database, got 'http://u:***@h/db'");
    expect(() => validate({}, [{ name: 'c'.repeat(64), type: SqlTypes.int() }])).toThrow("is longer than PostgreSQL's limit of 63 bytes for a name");
  });

  it('creates transactional writers from a sink spec', () => {
    const writer = postgresConnector.sink!.createWriter({ kind: 'sink', table: 'out', connector: 'postgres', options: { connector: 'postgres' }, schema, primaryKey: ['id'] });
    expect(writer).toBeInstanceOf(PostgresSinkWriter);
  });

  it('refuses an unknown option in CREATE TABLE', async () => {
    const engine = createEngine({ onWarning: () => {} });
    await expect(engine.execute("CREATE TABLE t (id BIGINT) WITH ('connector' = 'postgres', 'sink.semantics' = 'exactly-once')")).rejects.toThrow(
      "unknown option 'sink.semantics' for connector 'postgres'",
    );
  });
});

describe('postgres sink in a job', () => {
  let db: TestDatabase;
  const dirs: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('connector');
  });

  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  afterAll(async () => {
    await db?.drop();
  });

  async function start(sql: string): Promise<JobHandle> {
    const results = await createEngine({ onWarning: () => {} }).execute(sql);
    const last = results[results.length - 1] as StatementResult;
    if (last.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(last)}`);
    return last.job;
  }

  function script(table: string, rows: number, options: { checkpoints?: string; sink?: string; query?: string; rate?: number; dir?: string } = {}): string {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'weir-pg-job-'));
    if (options.dir === undefined) dirs.push(dir);
    return `SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
      ${options.checkpoints === undefined ? '' : `SET 'execution.checkpointing.interval' = '${options.checkpoints}';`}
      SET 'pipeline.name' = 'to_pg_${table}';
      CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '${options.rate ?? 1000000}',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${rows}');
      CREATE TABLE ${table} (${options.sink ?? 'id BIGINT, v STRING'}) WITH ('connector' = 'postgres', 'url' = '${db.url}');
      ${options.query ?? `INSERT INTO ${table} SELECT id, CAST(id AS STRING) FROM src;`}`;
  }

  const count = async (table: string): Promise<{ n: number; distinct: number }> =>
    (await db.rows<{ n: number; distinct: number }>(`SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct FROM ${table}`))[0]!;

  it('commits every row at the end of a job without checkpoints', async () => {
    const job = await start(script('plain_out', 5000));
    expect(await job.result()).toBe('FINISHED');
    expect(await count('plain_out')).toEqual({ n: 5000, distinct: 5000 });
    expect(await db.preparedGids()).toEqual([]);
  });

  it('materializes an updating query by primary key, equal to the same query run by PostgreSQL', async () => {
    const query = 'INSERT INTO totals SELECT id % 7, COUNT(*), SUM(id) FROM src GROUP BY id % 7;';
    const job = await start(script('totals', 20_000, { checkpoints: '50 ms', rate: 100_000, query, sink: 'k BIGINT, n BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED' }));
    expect(await job.result()).toBe('FINISHED');
    const expected = await db.rows('SELECT (g % 7)::bigint AS k, count(*)::bigint AS n, sum(g)::bigint AS total FROM generate_series(1, 20000) g GROUP BY 1 ORDER BY 1');
    expect(await db.rows('SELECT k, n, total FROM totals ORDER BY k')).toEqual(expected);
    expect(await db.preparedGids()).toEqual([]);
  });

  it('writes every row exactly once across a stop with savepoint and a resume', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-pg-job-'));
    dirs.push(dir);
    const rows = 20_000;
    const first = await start(script('resumed', rows, { checkpoints: '50 ms', rate: 20_000, dir }));
    while (first.lastCheckpoint === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    await first.stopWithSavepoint();
    const partial = await count('resumed');
    expect(partial.n).toBeGreaterThan(0);
    expect(partial.n).toBeLessThan(rows);
    expect(partial.distinct).toBe(partial.n);
    expect(await db.preparedGids()).toEqual([]);

    const second = await start(script('resumed', rows, { checkpoints: '50 ms', rate: 20_000, dir }));
    expect(second.resumedFrom).toBeDefined();
    expect(await second.result()).toBe('FINISHED');
    expect(await count('resumed')).toEqual({ n: rows, distinct: rows });
    expect(await db.preparedGids()).toEqual([]);
  });
});
