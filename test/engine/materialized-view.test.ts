/**
 * CREATE MATERIALIZED VIEW keeps a Postgres table equal to the query, exactly once, keyed by the
 * query's GROUP BY; SHOW / DROP MATERIALIZED VIEW; a query without a key is refused when it updates.
 */
import { describe, expect, it } from 'vitest';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../src/engine/engine.js';

const SOURCE = `CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen', 'rows-per-second' = '100000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000', 'fields.customer.min' = '1', 'fields.customer.max' = '20',
  'fields.amount.min' = '1', 'fields.amount.max' = '100')`;

describe('materialized views', () => {
  it('maintains a keyed Postgres table equal to the query', async () => {
    const url = await freshDatabase('weir_mv');
    const engine = createEngine();
    const dir = mkdtempSync(join(tmpdir(), 'weir-mv-'));
    const results = await engine.execute(`SET 'state.checkpoints.dir' = '${dir}'; ${SOURCE};
      CREATE TABLE order_log (id BIGINT, customer INT, amount DECIMAL(10, 2)) WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'order_log');
      INSERT INTO order_log SELECT * FROM orders;
      CREATE MATERIALIZED VIEW customer_totals WITH ('url' = '${url}', 'sink.buffer-flush.max-rows' = '7') AS
        SELECT customer, COUNT(*) AS orders, SUM(amount) AS total FROM orders GROUP BY customer;
      SHOW MATERIALIZED VIEWS;`);
    const shown = results[results.length - 1]!;
    expect(shown).toMatchObject({ kind: 'rows', rows: [['customer_totals', 'customer', expect.any(String)]] });
    for (const job of engine.session.jobs()) expect(await job.result(), String(job.error)).toBe('FINISHED');
    const batch = 'SELECT customer, count(*) AS orders, sum(amount) AS total FROM order_log GROUP BY customer';
    const view = 'SELECT customer, orders, total FROM customer_totals';
    expect(await pgQuery(url, `(${batch}) EXCEPT ALL (${view})`)).toEqual([]);
    expect(await pgQuery(url, `(${view}) EXCEPT ALL (${batch})`)).toEqual([]);
    // customer may be NULL (a NULL group is one group): a unique key NULLS NOT DISTINCT rather than a primary key.
    expect(await pgQuery(url, "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'customer_totals'::regclass AND i.indisunique AND i.indnullsnotdistinct")).toEqual([{ attname: 'customer' }]);
    const [read] = await engine.execute('SELECT customer, total FROM customer_totals WHERE customer <= 2 ORDER BY customer');
    const expected = await pgQuery(url, 'SELECT customer, sum(amount)::text AS total FROM order_log WHERE customer <= 2 GROUP BY customer ORDER BY customer');
    expect(read).toMatchObject({ kind: 'rows', schema: [{ name: 'customer', type: { kind: 'INT' } }, { name: 'total', type: { kind: 'DECIMAL', scale: 2 } }] });
    expect(read.kind === 'rows' && read.rows.map(([c, t]) => ({ customer: c, total: `${String(t).slice(0, -2)}.${String(t).slice(-2)}` }))).toEqual(expected);
    expect(await engine.query('SELECT count(*) AS n FROM customer_totals')).toEqual([{ n: 20 }]);
    // Read together with a table, the view is its definition, computed in weir: every order meets its customer's row.
    expect(await engine.query('SELECT COUNT(*) AS n FROM customer_totals AS t JOIN orders AS o ON o.customer = t.customer')).toEqual([{ n: 3000 }]);
    const markers = "(SELECT count(*) FROM weir.sink_commits WHERE job = 'materialized-views' AND sink = 'customer_totals')::int";
    expect(await pgQuery(url, `SELECT ${markers} > 0 AS committed`)).toEqual([{ committed: true }]);
    const [dropped] = await engine.execute('DROP MATERIALIZED VIEW customer_totals');
    expect(dropped).toEqual({ kind: 'ok', message: "Materialized view 'customer_totals' dropped, and its table 'customer_totals' with it." });
    expect(await pgQuery(url, `SELECT to_regclass('customer_totals') IS NULL AS gone, ${markers} AS markers`)).toEqual([{ gone: true, markers: 0 }]);
    await expect(engine.execute('DROP MATERIALIZED VIEW customer_totals')).rejects.toThrow("materialized view 'customer_totals' does not exist");
  });

  it('keeps the table on DROP when told to', async () => {
    const url = await freshDatabase('weir_mv');
    const engine = createEngine();
    const dir = mkdtempSync(join(tmpdir(), 'weir-mv-'));
    const view = `CREATE MATERIALIZED VIEW per_customer WITH ('url' = '${url}', 'keep-table-on-drop' = 'true') AS SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer`;
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}'; ${SOURCE}; ${view}`);
    for (const job of engine.session.jobs()) expect(await job.result(), String(job.error)).toBe('FINISHED');
    const [dropped] = await engine.execute('DROP MATERIALIZED VIEW per_customer');
    expect(dropped).toEqual({ kind: 'ok', message: "Materialized view 'per_customer' dropped; its table 'per_customer' stays in Postgres." });
    expect(await pgQuery(url, 'SELECT sum(n)::int AS total FROM per_customer')).toEqual([{ total: 3000 }]);
    await expect(engine.execute(`CREATE MATERIALIZED VIEW bad WITH ('url' = '${url}', 'keep-table-on-drop' = 'yes') AS SELECT * FROM orders`)).rejects.toThrow(
      "option 'keep-table-on-drop' must be 'true' or 'false', got 'yes'",
    );
  });

  it('materializes an updating query without a unique key as a multiset, equal to the query', async () => {
    const url = await freshDatabase('weir_mv');
    const engine = createEngine();
    const dir = mkdtempSync(join(tmpdir(), 'weir-mv-'));
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}'; ${SOURCE};
      CREATE TABLE order_log (id BIGINT, customer INT, amount DECIMAL(10, 2)) WITH ('connector' = 'postgres', 'url' = '${url}', 'table-name' = 'order_log');
      INSERT INTO order_log SELECT * FROM orders;
      CREATE MATERIALIZED VIEW histogram WITH ('url' = '${url}') AS SELECT n, COUNT(*) AS c FROM (SELECT customer, COUNT(*) AS n FROM orders GROUP BY customer) GROUP BY n UNION ALL SELECT 1, 1`);
    for (const job of engine.session.jobs()) expect(await job.result(), String(job.error)).toBe('FINISHED');
    const batch = 'SELECT n, count(*) AS c FROM (SELECT customer, count(*) AS n FROM order_log GROUP BY customer) q GROUP BY n UNION ALL SELECT 1, 1';
    const view = 'SELECT n, c FROM histogram';
    expect(await pgQuery(url, `(${batch}) EXCEPT ALL (${view})`)).toEqual([]);
    expect(await pgQuery(url, `(${view}) EXCEPT ALL (${batch})`)).toEqual([]);
    const [read] = await engine.execute('SELECT * FROM histogram');
    expect(read).toMatchObject({ kind: 'rows', schema: [{ name: 'n' }, { name: 'c' }] });
    await expect(engine.execute(`CREATE MATERIALIZED VIEW bad WITH ('colour' = 'red') AS SELECT * FROM orders`)).rejects.toThrow("unknown option 'colour' for a materialized view");
  });

  it('keeps the other views running when a new one cannot start', async () => {
    const url = await freshDatabase('weir_mv');
    const engine = createEngine({ onWarning: () => {} });
    const dir = mkdtempSync(join(tmpdir(), 'weir-mv-'));
    await engine.execute(`SET 'state.checkpoints.dir' = '${dir}';
      CREATE TABLE ticks (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200');
      CREATE MATERIALIZED VIEW tick_count WITH ('url' = '${url}') AS SELECT MOD(id, 3) AS k, COUNT(*) AS n FROM ticks GROUP BY MOD(id, 3);`);
    await expect(
      engine.execute(`CREATE MATERIALIZED VIEW broken WITH ('url' = 'postgres://nobody@127.0.0.1:1/nowhere') AS SELECT MOD(id, 3) AS k, COUNT(*) AS n FROM ticks GROUP BY MOD(id, 3)`),
    ).rejects.toThrow(/postgres sink 'broken' could not connect to postgres:\/\/nobody@127\.0\.0\.1:1\/nowhere/);
    const [views] = await engine.execute('SHOW MATERIALIZED VIEWS');
    expect(views).toMatchObject({ kind: 'rows', rows: [['tick_count', expect.any(String), expect.any(String)]] });
    const before = Number((await pgQuery<{ n: string | null }>(url, 'SELECT sum(n) AS n FROM tick_count'))[0]?.n ?? 0);
    await engine.execute('FLUSH');
    await new Promise((r) => setTimeout(r, 300));
    await engine.execute('FLUSH');
    expect(Number((await pgQuery<{ n: string | null }>(url, 'SELECT sum(n) AS n FROM tick_count'))[0]!.n)).toBeGreaterThan(before);
    await engine.close();
  });
});
