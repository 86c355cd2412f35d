/**
 * Flink's CREATE TABLE ... AS SELECT: the table takes the query's column names and types, and the
 * query runs as an INSERT into it (a writable table without WITH options, any connector with
 * them). The store keeps the table's own DDL, so a new session sees the table without running
 * the query again; a query that cannot be inserted leaves no table behind.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

describe('CREATE TABLE ... AS SELECT', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-ctas-'))));
  afterAll(() => process.chdir(home));

  it('creates a writable table with the query’s columns, which its job keeps following the source table', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE TABLE orders (id INT, customer STRING, amount DECIMAL(10, 2));
      INSERT INTO orders VALUES (1, 'ann', 10.00), (2, 'bob', 20.50), (3, 'ann', 5.25);`);
    const [result] = await engine.execute('CREATE TABLE big_orders AS SELECT id, UPPER(customer) AS who, CAST(amount * 2 AS DECIMAL(12, 2)) AS doubled FROM orders WHERE amount > 6');
    expect(result?.kind).toBe('job');
    await engine.execute("INSERT INTO orders VALUES (4, 'cy', 7.00); FLUSH;");
    const [described] = await engine.execute('DESCRIBE big_orders');
    expect(described?.kind === 'rows' && described.rows.map((r) => [r[0], r[1]])).toEqual([
      ['id', 'INT'],
      ['who', 'STRING'],
      ['doubled', 'DECIMAL(12, 2)'],
    ]);
    await engine.execute("SET 'execution.runtime-mode' = 'batch'");
    const rows = await engine.query('SELECT id, who, doubled FROM big_orders');
    expect(rows.sort((a, b) => Number(a.id) - Number(b.id))).toEqual([
      { id: 1, who: 'ANN', doubled: '20.00' },
      { id: 2, who: 'BOB', doubled: '41.00' },
      { id: 4, who: 'CY', doubled: '14.00' },
    ]);
  });

  it('keeps the table’s DDL, not the query, for the next session; IF NOT EXISTS leaves an existing table alone', async () => {
    const engine = createEngine({ catalogFile: '.weir/catalog.json' });
    await engine.execute(`CREATE TABLE src (k INT, v INT);
      INSERT INTO src VALUES (1, 1), (1, 2), (2, 5);
      CREATE TABLE copy_of AS SELECT k, v FROM src;
      FLUSH;`);
    const [again] = await engine.execute('CREATE TABLE IF NOT EXISTS copy_of AS SELECT k, v FROM src');
    expect(again).toEqual({ kind: 'ok', message: 'Execute statement succeeded.' });
    const [duplicate] = await engine.execute('SHOW CREATE TABLE copy_of');
    expect(duplicate?.kind === 'text' && duplicate.text).toMatch(/^CREATE TABLE copy_of \(\n {2}k INT,\n {2}v INT\n\)/);
    const text = readFileSync('.weir/catalog.json', 'utf8');
    expect(text).toContain('CREATE TABLE copy_of (');
    expect(text).not.toContain('AS SELECT k, v FROM src');
    await engine.close();
    const next = createEngine({ catalogFile: '.weir/catalog.json' });
    const report = await next.restore({ runMaterializedViews: false });
    expect(report.restored).toBeGreaterThanOrEqual(2);
    await next.execute("SET 'execution.runtime-mode' = 'batch'");
    const rows = await next.query('SELECT k, SUM(v) AS s FROM copy_of GROUP BY k');
    expect(rows.sort((a, b) => Number(a.k) - Number(b.k))).toEqual([{ k: 1, s: 3 }, { k: 2, s: 5 }]);
  });

  it('runs as a continuous job into a connector table, and refuses a bad query without leaving a table', async () => {
    const engine = createEngine();
    const [result] = await engine.execute(`CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
      CREATE TABLE out_tbl WITH ('connector' = 'blackhole') AS SELECT id, id * 10 AS tenfold FROM gen;`).then((r) => r.slice(1));
    expect(result?.kind).toBe('job');
    if (result?.kind === 'job') expect(await result.job.result()).toBe('FINISHED');
    await expect(engine.execute('CREATE TABLE broken AS SELECT nope FROM gen')).rejects.toThrow(/nope/);
    await expect(engine.execute('DESCRIBE broken')).rejects.toThrow(/broken/);
    // A table the INSERT cannot write (datagen is no sink): created, then dropped again.
    await expect(engine.execute("CREATE TABLE counts WITH ('connector' = 'datagen') AS SELECT id FROM gen")).rejects.toThrow(/datagen/);
    await expect(engine.execute('DESCRIBE counts')).rejects.toThrow(/counts/);
  });
});
