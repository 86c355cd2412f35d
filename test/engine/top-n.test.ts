/** ROW_NUMBER() OVER (...) as Top-N: the final table equals the batch Top-N, with row numbers; without a filter it is refused. */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const sort = (rows: Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('Top-N', () => {
  it('keeps the top 2 per partition, renumbering as better rows arrive', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE VIEW bids AS
      SELECT * FROM (VALUES ('a', 5), ('a', 3), ('b', 1)) AS t(k, price)
      UNION ALL SELECT * FROM (VALUES ('a', 9), ('a', 4), ('b', 2), ('a', 9)) AS u(k, price)`);
    const rows = await engine.query(`SELECT k, price, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY price DESC) AS rn FROM bids
      ) WHERE rn <= 2`);
    expect(sort(rows)).toEqual(sort([{ k: 'a', price: 9, rn: 1 }, { k: 'a', price: 9, rn: 2 }, { k: 'b', price: 2, rn: 1 }, { k: 'b', price: 1, rn: 2 }]));
  });

  it('deduplicates with rn = 1 (keep first by ascending order)', async () => {
    const engine = createEngine();
    const rows = await engine.query(`SELECT k, v FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM (VALUES ('x', 3), ('x', 1), ('y', 7)) AS t(k, v)
      ) WHERE rn = 1`);
    expect(sort(rows)).toEqual(sort([{ k: 'x', v: 1 }, { k: 'y', v: 7 }]));
  });

  it('refuses a row number without a filter on it', async () => {
    const engine = createEngine();
    await expect(engine.query('SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM (VALUES (1, 2)) AS t(k, v)')).rejects.toThrow(
      'ROW_NUMBER() OVER (...) runs only as Top-N: filter its result, e.g. WHERE rn <= 10',
    );
  });
});
