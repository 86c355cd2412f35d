/** The programmatic API: subscribe yields typed changes, query returns the final table, both can be cancelled. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/index.js';

const ORDERS = `CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen',
  'rows-per-second' = '1000000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '40000',
  'fields.customer.min' = '1', 'fields.customer.max' = '3')`;

describe('programmatic API', () => {
  it('query returns the final rows as objects, with exact decimals and Dates', async () => {
    const engine = createEngine();
    const rows = await engine.query(
      "SELECT k, SUM(v) AS total, COUNT(*) AS n, MAX(ts) AS last FROM (VALUES ('a', 1.50, TIMESTAMP '2024-01-01 10:00:00'), ('b', 2.25, TIMESTAMP '2024-01-02 00:00:00'), ('a', 0.75, TIMESTAMP '2024-01-03 00:00:00')) AS t(k, v, ts) GROUP BY k",
    );
    expect(rows.sort((x, y) => String(x.k).localeCompare(String(y.k)))).toEqual([
      { k: 'a', total: '2.25', n: 2, last: new Date(Date.UTC(2024, 0, 3)) },
      { k: 'b', total: '2.25', n: 1, last: new Date(Date.UTC(2024, 0, 2)) },
    ]);
  });

  it('subscribe yields the changelog as it happens, typed by op', async () => {
    const engine = createEngine();
    await engine.execute(ORDERS);
    const ops = new Set<string>();
    let last = new Map<number, number>();
    for await (const change of engine.subscribe('SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer')) {
      ops.add(change.op);
      if (change.op === '+I' || change.op === '+U') last = new Map(last).set(change.row.customer as number, change.row.n as number);
    }
    expect([...ops].sort()).toEqual(['+I', '+U', '-U']);
    expect([...last.values()].reduce((a, b) => a + b, 0)).toBe(40000);
  });

  it('breaking out of the loop cancels the job', async () => {
    const engine = createEngine();
    await engine.execute(ORDERS.replace("'1000000'", "'1000'").replace("'40000'", "'1000000'"));
    let seen = 0;
    for await (const change of engine.subscribe('SELECT id FROM orders')) {
      expect(change.op).toBe('+I');
      if (++seen === 5) break;
    }
    const [job] = engine.session.jobs();
    expect(job?.status).toBe('CANCELED');
  });

  it('an AbortSignal stops a subscription', async () => {
    const engine = createEngine();
    await engine.execute(ORDERS.replace("'1000000'", "'500'").replace("'40000'", "'1000000'"));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    let seen = 0;
    for await (const _change of engine.subscribe('SELECT id FROM orders', { signal: controller.signal })) seen++;
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(1000);
    expect(engine.session.jobs()[0]?.status).toBe('CANCELED');
  });

  it('throws the job failure from the loop, and refuses anything but one SELECT', async () => {
    const engine = createEngine();
    await expect(engine.query('SELECT 10 / v FROM (VALUES (CAST(0 AS BIGINT))) AS t(v)')).rejects.toThrow('division by zero in 10 / 0');
    await expect(engine.query("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')")).rejects.toThrow('subscribe takes exactly one SELECT statement');
  });

  it('runs the same query twice under checkpointing: a query never resumes an earlier one', async () => {
    const engine = createEngine();
    const dir = mkdtempSync(join(tmpdir(), 'weir-query-twice-'));
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}'; SET 'execution.checkpointing.interval' = '50 ms'; ${ORDERS}`);
    const query = 'SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer';
    const sorted = async (): Promise<unknown[]> => (await engine.query(query)).sort((a, b) => Number(a.customer) - Number(b.customer));
    const first = await sorted();
    expect(first.map((r) => (r as { n: number }).n).reduce((a, b) => a + b, 0)).toBe(40000);
    expect(await sorted()).toEqual(first);
  });
});
