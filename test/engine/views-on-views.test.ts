/**
 * Views on views: a materialized view, a view or a query may read a materialized view as the
 * dynamic table it is — its definition, computed inside weir — in chains, joins, aggregates and a
 * Top-N of views, each table equal to PostgreSQL's answer over mirrors of the same inputs after
 * every change. DROP of a relation others read is refused with their names; CASCADE drops them
 * too. DESCRIBE shows a multiset view's hidden column, which reads through weir leave out.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

/** View name → [its query over the tables and the views before it, the same query over the Postgres mirror]. */
const VIEWS: readonly (readonly [string, string, string])[] = [
  ['per_customer', 'SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM orders GROUP BY customer', 'SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM m.orders GROUP BY customer'],
  ['big_customers', 'SELECT customer, total FROM per_customer WHERE total > 50', 'SELECT customer, SUM(amount) AS total FROM m.orders GROUP BY customer HAVING SUM(amount) > 50'],
  [
    'named_totals',
    'SELECT c.name, p.total FROM per_customer AS p JOIN customers AS c ON c.id = p.customer',
    'SELECT c.name, p.total FROM (SELECT customer, SUM(amount) AS total FROM m.orders GROUP BY customer) p JOIN m.customers c ON c.id = p.customer',
  ],
  ['histogram', 'SELECT n, COUNT(*) AS customers FROM per_customer GROUP BY n', 'SELECT n, COUNT(*) AS customers FROM (SELECT customer, COUNT(*) AS n FROM m.orders GROUP BY customer) p GROUP BY n'],
  [
    'top_two',
    'SELECT customer, total FROM (SELECT customer, total, ROW_NUMBER() OVER (ORDER BY total DESC, customer) AS rn FROM per_customer) WHERE rn <= 2',
    'SELECT customer, total FROM (SELECT customer, total, ROW_NUMBER() OVER (ORDER BY total DESC, customer) AS rn FROM (SELECT customer, SUM(amount) AS total FROM m.orders GROUP BY customer) p) q WHERE rn <= 2',
  ],
  ['top_names', 'SELECT t.customer, n.name FROM top_two AS t LEFT JOIN named_totals AS n ON n.total = t.total', ''],
];

const CHANGES = [
  "INSERT INTO customers VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')",
  'INSERT INTO orders VALUES (10, 1, 30), (11, 1, 40), (12, 2, 5), (13, 3, 60), (14, 4, 1)',
  'UPDATE orders SET amount = 70 WHERE id = 12',
  'DELETE FROM orders WHERE id = 11',
  "UPDATE customers SET name = 'bea' WHERE id = 2",
  'INSERT INTO orders VALUES (15, 3, 2), (16, 4, 99)',
  'DELETE FROM customers WHERE id = 3',
];

describe('views on views', () => {
  const home = process.cwd();
  let engine: Engine;
  let url: string;

  beforeAll(async () => {
    process.chdir(mkdtempSync(join(tmpdir(), 'weir-view-chain-')));
    url = await freshDatabase('weir_view_chain');
    engine = createEngine();
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}';
      CREATE TABLE customers (id INT PRIMARY KEY NOT ENFORCED, name STRING);
      CREATE TABLE orders (id INT PRIMARY KEY NOT ENFORCED, customer INT, amount INT);`);
    await pgQuery(url, 'CREATE SCHEMA m; CREATE TABLE m.customers (id INT PRIMARY KEY, name TEXT); CREATE TABLE m.orders (id INT PRIMARY KEY, customer INT, amount INT)');
  });

  afterAll(async () => {
    await engine.close({ graceful: true });
    process.chdir(home);
  });

  /** The mirror's answer for `top_names`, built from the mirror's answers of the views it reads. */
  const mirrorOf = (name: string): string => {
    if (name !== 'top_names') return VIEWS.find(([n]) => n === name)![2];
    return `SELECT t.customer, n.name FROM (${mirrorOf('top_two')}) t LEFT JOIN (${mirrorOf('named_totals')}) n ON n.total = t.total`;
  };

  it('maintains chains, joins, aggregates and a Top-N of views, each equal to PostgreSQL', async () => {
    for (const [name, query] of VIEWS) await engine.execute(`CREATE MATERIALIZED VIEW ${name} WITH ('url' = '${url}') AS ${query}`);
    await engine.execute(`CREATE VIEW rich AS SELECT customer FROM big_customers WHERE total > 60`);
    for (const change of CHANGES) {
      await engine.execute(`${change}; FLUSH;`);
      await pgQuery(url, change.replace(/\b(INTO|UPDATE|FROM) (orders|customers)\b/, '$1 m.$2'));
      for (const [name] of VIEWS) {
        const columns = (await pgQuery<{ c: string }>(url, `SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) AS c FROM information_schema.columns WHERE table_name = '${name}' AND column_name <> '_weir_row_hash'`))[0]!.c;
        const view = `SELECT ${columns} FROM public.${name}`;
        const differences = await pgQuery(url, `(SELECT 'missing' AS side, * FROM ((${mirrorOf(name)}) EXCEPT ALL (${view})) d) UNION ALL (SELECT 'extra', * FROM ((${view}) EXCEPT ALL (${mirrorOf(name)})) d)`);
        expect({ change, name, differences }).toEqual({ change, name, differences: [] });
      }
    }
    // A query mixing a view and a table runs in weir over the view's definition (batch mode reads the tables to their end).
    await engine.execute("SET 'execution.runtime-mode' = 'batch'");
    const mixed = await engine.query('SELECT c.name, b.total FROM big_customers AS b JOIN customers AS c ON c.id = b.customer');
    const expected = await pgQuery<{ name: string; total: string }>(url, `SELECT c.name, b.total FROM (${mirrorOf('big_customers')}) b JOIN m.customers c ON c.id = b.customer`);
    expect(mixed.map((r) => JSON.stringify([r.name, Number(r.total)])).sort()).toEqual(expected.map((r) => JSON.stringify([r.name, Number(r.total)])).sort());
    expect(await engine.query('SELECT customer FROM rich')).toEqual(await engine.query(`SELECT customer FROM big_customers WHERE total > 60`));
    await engine.execute("SET 'execution.runtime-mode' = 'streaming'");
  });

  it('a query of views only reads their tables, under their table names, without hidden columns', async () => {
    await engine.execute(`CREATE MATERIALIZED VIEW spread WITH ('url' = '${url}', 'table-name' = 'spread_table') AS SELECT amount FROM orders`);
    await engine.execute('FLUSH');
    const [read] = await engine.execute('SELECT * FROM spread ORDER BY amount');
    expect(read).toMatchObject({ kind: 'rows', schema: [{ name: 'amount' }] });
    const amounts = await pgQuery<{ amount: number }>(url, 'SELECT amount FROM m.orders ORDER BY amount');
    expect(read?.kind === 'rows' && read.rows).toEqual(amounts.map((r) => [r.amount]));
    const [described] = await engine.execute('DESCRIBE spread');
    expect(described?.kind === 'rows' && described.rows.map((r) => [r[0], r[3], String(r[4]).slice(0, 7)])).toEqual([
      ['amount', null, 'null'],
      ['_weir_row_hash', null, 'HIDDEN:'],
    ]);
    const [shown] = await engine.execute('SHOW MATERIALIZED VIEWS');
    expect(shown?.kind === 'rows' && shown.rows.find((r) => r[0] === 'spread')?.[1]).toBe('(none: a multiset)');
    await engine.execute('DROP MATERIALIZED VIEW spread');
  });

  it('refuses to drop what views read, naming them; CASCADE drops them too', async () => {
    await expect(engine.execute('DROP MATERIALIZED VIEW per_customer')).rejects.toThrow(
      /cannot drop materialized view 'per_customer': .*materialized view 'big_customers'.* depend on it/,
    );
    await expect(engine.execute('DROP TABLE orders')).rejects.toThrow(/cannot drop table 'orders': .*materialized view 'per_customer'/);
    await expect(engine.execute('DROP MATERIALIZED VIEW big_customers')).rejects.toThrow("cannot drop materialized view 'big_customers': view 'rich' depends on it");
    const [dropped] = await engine.execute('DROP MATERIALIZED VIEW per_customer CASCADE');
    expect(dropped).toMatchObject({ kind: 'ok', message: expect.stringMatching(/Materialized view 'per_customer' dropped, and its table 'per_customer' with it\. Dropped with it: .*view 'rich'/) });
    const [views] = await engine.execute('SHOW MATERIALIZED VIEWS');
    expect(views).toMatchObject({ kind: 'rows', rows: [] });
    const [plain] = await engine.execute('SHOW VIEWS');
    expect(plain).toMatchObject({ kind: 'rows', rows: [] });
    const tables = await pgQuery<{ n: number }>(url, `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN (${VIEWS.map(([n]) => `'${n}'`).join(', ')})`);
    expect(tables).toEqual([{ n: 0 }]);
    await engine.execute('DROP TABLE orders');
  });
});
