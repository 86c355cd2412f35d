/** Regular inner joins: matches in both directions, retractions of an updating input, residual conditions, refusals. */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const sort = (rows: Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('inner join', () => {
  it('joins an updating aggregate with a table: the final table equals the batch join', async () => {
    const engine = createEngine();
    await engine.execute(`
      CREATE VIEW orders AS SELECT * FROM (VALUES (1, 10), (2, 5)) AS t(customer, amount)
        UNION ALL SELECT * FROM (VALUES (1, 7), (3, 1), (2, 2)) AS u(customer, amount);
      CREATE VIEW customers AS SELECT * FROM (VALUES (1, 'ann'), (2, 'bob'), (4, 'dan')) AS c(id, name);`);
    const rows = await engine.query(`
      SELECT c.name, t.total FROM (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) AS t
      JOIN customers AS c ON t.customer = c.id`);
    expect(sort(rows)).toEqual(sort([{ name: 'ann', total: 17 }, { name: 'bob', total: 7 }]));
    const ops = new Set<string>();
    for await (const { op } of engine.subscribe('SELECT c.name, t.total FROM customers AS c JOIN (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) AS t ON t.customer = c.id')) ops.add(op);
    expect([...ops].sort()).toEqual(['+I', '-D']);
  });

  it('keeps duplicates on both sides and applies the rest of the ON condition as a filter', async () => {
    const engine = createEngine();
    const rows = await engine.query(`
      SELECT a.k, a.v, b.w FROM (VALUES (1, 1), (1, 1), (2, 5)) AS a(k, v)
      INNER JOIN (VALUES (1, 3), (2, 4), (2, 9), (CAST(NULL AS INT), 0)) AS b(k, w) ON a.k = b.k AND b.w > a.v`);
    expect(sort(rows)).toEqual(sort([{ k: 1, v: 1, w: 3 }, { k: 1, v: 1, w: 3 }, { k: 2, v: 5, w: 9 }]));
  });

  it('refuses joins it cannot run yet, saying which', async () => {
    const engine = createEngine();
    await expect(engine.query('SELECT * FROM (VALUES (1)) AS a(x) LEFT JOIN (VALUES (1)) AS b(y) ON a.x = b.y')).rejects.toThrow('LEFT JOIN is not supported yet; INNER JOIN is');
    await expect(engine.query('SELECT * FROM (VALUES (1)) AS a(x) JOIN (VALUES (1)) AS b(y) ON a.x < b.y')).rejects.toThrow(
      'the ON condition of a join needs an equality between a column of each side',
    );
  });
});
