/**
 * The NATS source through the engine: messages of a JetStream stream → GROUP BY → the postgres
 * sink, checked against Postgres computing the same query over the same data (EXCEPT ALL both
 * ways empty); options checked when the table is created ("did you mean"); a job that meets a bad
 * record fails naming subject, stream sequence and reason.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import type { StatementResult } from '../../../src/engine/statement-result.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import { readFileSync } from 'node:fs';
import { runWeir, writeScript } from '../../support/weir-cli.js';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';
import { createTestStream, type TestStream } from './nats-test-util.js';

let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function stream(): Promise<TestStream> {
  const s = await createTestStream('engine');
  cleanup.push(() => s.delete());
  return s;
}

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase('nats');
  cleanup.push(() => db.drop());
  return db;
}

function lastJob(results: readonly StatementResult[]): JobHandle {
  const last = results[results.length - 1]!;
  if (last.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(last)}`);
  return last.job;
}

/** Message `id`: a few NULLs, decimals, and two subjects. */
function order(id: number): { id: number; k: number; v: number | null; amount: string; name: string | null } {
  return { id, k: id % 37, v: id % 97 === 0 ? null : (id * 7919) % 1001, amount: `${(id * 31) % 10_000}.${String(id % 100).padStart(2, '0')}`, name: id % 11 === 0 ? null : `n${id % 5}` };
}

const TABLE = (s: TestStream, extra = ''): string => `CREATE TABLE orders (id BIGINT, k INT, v INT, amount DECIMAL(10, 2), name STRING) WITH (
  'connector' = 'nats', 'url' = '${s.url}', 'stream' = '${s.name}', 'subject' = '${s.name}.*', 'format' = 'json',
  'scan.bounded.mode' = 'latest'${extra})`;

describe('nats source in the engine', () => {
  it('NATS → GROUP BY → postgres equals Postgres computing the query over the same data', async () => {
    const [s, db] = await Promise.all([stream(), database()]);
    const orders = Array.from({ length: 6_000 }, (_, i) => order(i + 1));
    await s.publishMany('eu', orders.filter((o) => o.id % 2 === 0).map((o) => JSON.stringify(o)));
    await s.publishMany('us', orders.filter((o) => o.id % 2 === 1).map((o) => JSON.stringify(o)));
    await db.client.query('CREATE TABLE raw (id BIGINT, k INT, v INT, amount NUMERIC(10, 2), name TEXT)');
    await db.client.query(
      'INSERT INTO raw SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id BIGINT, k INT, v INT, amount NUMERIC(10, 2), name TEXT)',
      [JSON.stringify(orders)],
    );

    const engine = createEngine({ onWarning: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'weir-nats-engine-'));
    const job = lastJob(
      await engine.execute(`SET 'state.checkpoints.dir' = '${dir}';
        SET 'execution.checkpointing.interval' = '100 ms';
        ${TABLE(s)};
        CREATE TABLE agg (k INT, n BIGINT, total INT, hi DECIMAL(10, 2), names BIGINT, PRIMARY KEY (k) NOT ENFORCED)
          WITH ('connector' = 'postgres', 'url' = '${db.url}', 'table-name' = 'agg', 'sink.semantic' = 'exactly-once');
        INSERT INTO agg SELECT k, COUNT(*), SUM(v), MAX(amount), COUNT(name) FROM orders GROUP BY k;`),
    );
    expect(await job.result(), String(job.error)).toBe('FINISHED');
    const batch = 'SELECT k, count(*) AS n, sum(v) AS total, max(amount) AS hi, count(name) AS names FROM raw GROUP BY k';
    const sink = 'SELECT k, n, total, hi, names FROM agg';
    expect(await db.rows(`(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
    expect(await db.rows(`(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
    expect(await db.rows('SELECT count(*)::int AS n FROM agg')).toEqual([{ n: 37 }]);
    expect(await db.preparedGids()).toEqual([]);
  });

  it('64-bit BIGINT ids in JSON messages (raw numbers beyond 2^53) → GROUP BY → postgres keep every digit', async () => {
    const [s, db] = await Promise.all([stream(), database()]);
    const ids = [9223372036854775807n, -9223372036854775808n, 9007199254740993n, 8821808526777993777n, 42n];
    const messages = Array.from({ length: 200 }, (_, i) => ({ id: i < ids.length ? ids[i]! : (1_700_000_000_000n + BigInt(i)) << 22n, grp: ids[i % ids.length]!, v: BigInt(i) * 281474976710656n }));
    // Written by hand: JSON.stringify cannot write a bigint, and a Number would round it.
    await s.publishMany('eu', messages.map((m) => `{"id":${m.id},"grp":${m.grp},"v":${m.v}}`));
    await db.client.query('CREATE TABLE raw (id BIGINT, grp BIGINT, v BIGINT)');
    await db.client.query(`INSERT INTO raw VALUES ${messages.map((m) => `(${m.id}, ${m.grp}, ${m.v})`).join(', ')}`);
    const engine = createEngine({ onWarning: () => {} });
    const job = lastJob(
      await engine.execute(`CREATE TABLE events (id BIGINT, grp BIGINT, v BIGINT) WITH (
          'connector' = 'nats', 'url' = '${s.url}', 'stream' = '${s.name}', 'subject' = '${s.name}.*', 'format' = 'json', 'scan.bounded.mode' = 'latest');
        CREATE TABLE by_grp (grp BIGINT, n BIGINT, total BIGINT, lo BIGINT, hi BIGINT, PRIMARY KEY (grp) NOT ENFORCED)
          WITH ('connector' = 'postgres', 'url' = '${db.url}', 'table-name' = 'by_grp');
        INSERT INTO by_grp SELECT grp, COUNT(*), SUM(v), MIN(id), MAX(id) FROM events GROUP BY grp;`),
    );
    expect(await job.result(), String(job.error)).toBe('FINISHED');
    const batch = 'SELECT grp, count(*) AS n, sum(v)::bigint AS total, min(id) AS lo, max(id) AS hi FROM raw GROUP BY grp';
    const sink = 'SELECT grp, n, total, lo, hi FROM by_grp';
    expect(await db.rows(`(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
    expect(await db.rows(`(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
    expect(await db.rows('SELECT count(*)::int AS n FROM by_grp')).toEqual([{ n: ids.length }]);
  });

  it('checks options when the table is created', async () => {
    const s = await stream();
    const engine = createEngine({ onWarning: () => {} });
    await expect(engine.execute(TABLE(s, ", 'scan.startup.mod' = 'latest'"))).rejects.toMatchObject({
      message: "unknown option 'scan.startup.mod' for connector 'nats'",
      hint: "did you mean 'scan.startup.mode'?",
    });
    await expect(engine.execute(TABLE(s, ", 'scan.startup.mode' = 'sequence'"))).rejects.toThrow(
      "nats option 'scan.startup.mode' = 'sequence' needs option 'scan.startup.sequence'",
    );
    await expect(engine.execute(TABLE(s).replace(s.url, 'http://user:hunter22@localhost:4222'))).rejects.toThrow(
      "nats option 'url' must be a server URL such as nats://127.0.0.1:4222 (several separated by commas), got 'http://user:***@localhost:4222'",
    );
    await expect(engine.execute(TABLE(s).replace("'format' = 'json'", "'format' = 'avro'"))).rejects.toThrow("option 'format' must be one of 'json', 'csv', got 'avro'");
  });

  it('a job that meets a bad record fails naming the subject, the stream sequence and the reason', async () => {
    const s = await stream();
    await s.publish('eu', [JSON.stringify(order(1)), '{"id": 2, "k": 1, "v": "many"}', JSON.stringify(order(3))]);
    const engine = createEngine({ onWarning: () => {} });
    const job = lastJob(
      await engine.execute(`${TABLE(s)};
        CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO out SELECT id FROM orders;`),
    );
    expect(await job.result()).toBe('FAILED');
    expect((job.error as Error).message).toBe(`nats source 'orders': subject '${s.name}.eu' of stream '${s.name}', stream sequence 2: column 'v': 'many' is not a valid INT`);
  });

  it('weir run: a bad record fails the run with the exact error; ignoring parse errors sets it aside and the run ends', async () => {
    const s = await stream();
    await s.publish('eu', [JSON.stringify(order(1)), '{"id": 2, "k": "one"}', JSON.stringify(order(3))]);
    const sql = (extra: string): string => `${TABLE(s, extra)};
      CREATE TABLE out_t (id BIGINT, k INT) WITH ('connector' = 'print');
      INSERT INTO out_t SELECT id, k FROM orders;`;
    const failing = await runWeir(['run', writeScript(sql(''))]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain(
      `connector error: nats source 'orders': subject '${s.name}.eu' of stream '${s.name}', stream sequence 2: column 'k': 'one' is not a valid INT`,
    );
    expect(failing.stderr).toContain("HINT: set 'format.ignore-parse-errors' = 'true' to set bad records aside in a dead-letter file");

    const script = writeScript(sql(", 'format.ignore-parse-errors' = 'true'"));
    const lenient = await runWeir(['run', script], { cwd: join(script, '..') });
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stdout).toBe('+I[1, 1]\n+I[3, 3]\n');
    const dead = JSON.parse(readFileSync(join(script, '..', '.weir', 'dead-letter', 'orders.jsonl'), 'utf8')) as Record<string, unknown>;
    expect(dead).toMatchObject({ source: `subject '${s.name}.eu' of stream '${s.name}'`, position: 'stream sequence 2', record: '{"id": 2, "k": "one"}' });
  });

  it('a job on a stream that does not exist fails at start, suggesting the one meant', async () => {
    const s = await stream();
    const engine = createEngine({ onWarning: () => {} });
    const job = lastJob(
      await engine.execute(`${TABLE(s).replace(`'stream' = '${s.name}'`, `'stream' = '${s.name}x'`)};
        CREATE TABLE out (id BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO out SELECT id FROM orders;`),
    );
    expect(await job.result()).toBe('FAILED');
    expect(job.error).toMatchObject({ message: `nats table 'orders': stream '${s.name}x' does not exist at ${s.url}`, hint: `did you mean '${s.name}'?` });
  });
});
