/**
 * The filesystem source in whole jobs: CSV and JSON files read through GROUP BY into the postgres
 * sink equal the same query run by PostgreSQL over the same rows loaded into a table (EXCEPT ALL
 * both ways empty); a bad record fails the job with its place, or goes to the dead-letter file
 * under the working directory with a warning per record.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/engine.js';
import type { JobHandle } from '../../../src/engine/job-handle.js';
import { createTestDatabase, type TestDatabase } from '../postgres/pg-test-database.js';
import { TempDirs } from '../../support/temp-dirs.js';

const ROWS = 30_000;

interface Order {
  readonly id: number;
  readonly customer: number;
  readonly amount: string | null;
  readonly note: string;
  readonly ts: string;
}

/** Deterministic orders: 97 customers, every 13th amount NULL, notes with commas, quotes and non-ASCII text. */
function orders(): Order[] {
  return Array.from({ length: ROWS }, (_unused, i) => ({
    id: i + 1,
    customer: (i * 7919) % 97,
    amount: i % 13 === 0 ? null : `${(i * 37) % 100000}.${String(i % 100).padStart(2, '0')}`,
    note: i % 5 === 0 ? `say "hi", ${i}` : i % 5 === 1 ? `größe ${i}` : `n${i}`,
    ts: `2024-01-${String(1 + (i % 28)).padStart(2, '0')} ${String(i % 24).padStart(2, '0')}:00:00.${String(i % 1000).padStart(3, '0')}`,
  }));
}

const csvField = (text: string): string => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
const csvLine = (o: Order): string => [o.id, o.customer, o.amount ?? '', csvField(o.note), o.ts].join(',');
const jsonLine = (o: Order): string => JSON.stringify({ id: o.id, customer: o.customer, amount: o.amount === null ? null : Number(o.amount), note: o.note, ts: o.ts.replace(' ', 'T') });

const COLUMNS = 'id BIGINT, customer INT, amount DECIMAL(10, 2), note STRING, ts TIMESTAMP(3)';
const QUERY = 'SELECT customer, COUNT(*) AS n, SUM(amount) AS total, MAX(ts) AS latest, MIN(id) AS first_id FROM orders GROUP BY customer';

const temp = new TempDirs('weir-fs-engine-');
const tempDir = (): string => temp.make();

async function startJob(sql: string, warnings: string[] = []): Promise<JobHandle> {
  const results = await createEngine({ onWarning: (m) => warnings.push(m) }).execute(sql);
  const last = results[results.length - 1]!;
  if (last.kind !== 'job') throw new Error(`expected a job, got ${JSON.stringify(last)}`);
  return last.job;
}

describe('filesystem source in a job', () => {
  let db: TestDatabase;
  const data = orders();

  beforeAll(async () => {
    db = await createTestDatabase('fs_source');
    await db.rows('CREATE TABLE raw (id bigint, customer int, amount numeric(10, 2), note text, ts timestamp(3))');
    await db.rows('INSERT INTO raw SELECT * FROM unnest($1::bigint[], $2::int[], $3::numeric[], $4::text[], $5::timestamp[])', [
      data.map((o) => o.id),
      data.map((o) => o.customer),
      data.map((o) => o.amount),
      data.map((o) => o.note),
      data.map((o) => o.ts),
    ]);
  });

  afterAll(async () => {
    await db?.drop();
  });

  afterEach(() => {
    temp.removeAll();
  });

  async function expectEqualToPostgres(table: string): Promise<void> {
    const batch = QUERY.replace('FROM orders', 'FROM raw');
    const sink = `SELECT customer, n, total, latest, first_id FROM ${table}`;
    expect(await db.rows(`(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
    expect(await db.rows(`(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
    expect((await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n).toBe(97);
    expect(await db.preparedGids()).toEqual([]);
  }

  for (const format of ['csv', 'json'] as const) {
    it(`${format} files → GROUP BY → postgres equals PostgreSQL's answer over the same rows`, async () => {
      const dir = tempDir();
      const input = join(dir, 'in');
      mkdirSync(join(input, 'late'), { recursive: true });
      const line = format === 'csv' ? csvLine : jsonLine;
      const thirds = [data.slice(0, 10_000), data.slice(10_000, 20_000), data.slice(20_000)];
      writeFileSync(join(input, 'a.part'), `${thirds[0]!.map(line).join('\n')}\n`);
      writeFileSync(join(input, 'b.part'), `${thirds[1]!.map(line).join('\r\n')}\r\n`);
      writeFileSync(join(input, 'late', 'c.part'), thirds[2]!.map(line).join('\n'));
      writeFileSync(join(input, '.c.part.inprogress'), `${line(data[0]!)}\n`);
      const table = `totals_${format}`;
      const job = await startJob(`SET 'state.checkpoints.dir' = '${join(dir, 'checkpoints')}';
        SET 'execution.checkpointing.interval' = '100 ms';
        SET 'pipeline.name' = 'fs_${format}';
        CREATE TABLE orders (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${input}', 'format' = '${format}');
        CREATE TABLE ${table} (customer INT, n BIGINT, total DECIMAL(38, 2), latest TIMESTAMP(3), first_id BIGINT,
          PRIMARY KEY (customer) NOT ENFORCED) WITH ('connector' = 'postgres', 'url' = '${db.url}', 'sink.semantic' = 'exactly-once');
        INSERT INTO ${table} ${QUERY};`);
      expect(await job.result(), String(job.error)).toBe('FINISHED');
      await expectEqualToPostgres(table);
    });
  }

  it('fails the job on a bad record, naming file, line, byte, column and value', async () => {
    const dir = tempDir();
    const file = join(dir, 'orders.csv');
    writeFileSync(file, `${csvLine(data[0]!)}\n${csvLine(data[1]!)}\n3,4,abc,x,2024-01-01 00:00:00\n`);
    const job = await startJob(`SET 'pipeline.name' = 'fs_bad';
      CREATE TABLE orders (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'csv');
      CREATE TABLE sink (id BIGINT) WITH ('connector' = 'blackhole');
      INSERT INTO sink SELECT id FROM orders;`);
    expect(await job.result()).toBe('FAILED');
    const offset = Buffer.byteLength(`${csvLine(data[0]!)}\n${csvLine(data[1]!)}\n`);
    expect((job.error as Error).message).toBe(`filesystem source 'orders': ${file}, line 3 (byte ${offset}): column 'amount': 'abc' is not a valid DECIMAL(10, 2)`);
  });

  it("with 'format.ignore-parse-errors': the job finishes, bad records are in .weir/dead-letter/<table>.jsonl of the working directory", async () => {
    const dir = tempDir();
    const file = join(dir, 'orders.json');
    writeFileSync(file, `${jsonLine(data[0]!)}\n{"id": 2, "customer": "many"}\nnot json\n${jsonLine(data[2]!)}\n`);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const warnings: string[] = [];
      const job = await startJob(`SET 'pipeline.name' = 'fs_ignore';
        CREATE TABLE orders (${COLUMNS}) WITH ('connector' = 'filesystem', 'path' = '${file}', 'format' = 'json', 'format.ignore-parse-errors' = 'true');
        CREATE TABLE ids (id BIGINT) WITH ('connector' = 'blackhole');
        INSERT INTO ids SELECT id FROM orders;`, warnings);
      expect(await job.result()).toBe('FINISHED');
      const letters = readFileSync(join(dir, '.weir', 'dead-letter', 'orders.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
      const second = Buffer.byteLength(jsonLine(data[0]!)) + 1;
      const third = second + Buffer.byteLength('{"id": 2, "customer": "many"}') + 1;
      expect(letters.map((l) => [l.position, l.reason, l.record])).toEqual([
        [`line 2 (byte ${second})`, "column 'customer': 'many' is not a valid INT", '{"id": 2, "customer": "many"}'],
        [`line 3 (byte ${third})`, expect.stringMatching(/^not valid JSON: /), 'not json'],
      ]);
      expect(warnings.filter((w) => w.includes('set aside in'))).toHaveLength(2);
      expect(job.metrics().reduce((n, m) => n + m.recordsRejected, 0)).toBe(2);
      expect(warnings[0]).toContain(`filesystem source 'orders': ${file}, line 2 (byte ${second}): column 'customer': 'many' is not a valid INT (set aside in .weir/dead-letter/orders.jsonl)`);
    } finally {
      process.chdir(cwd);
    }
  });
});
