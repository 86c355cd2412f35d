/**
 * ROW_NUMBER() OVER (...) as Top-N: the final table equals the batch Top-N, with row numbers or
 * without; rank ranges; partition and order keys that are expressions, with NULL orders; without
 * an upper bound on the number it is refused.
 */
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

  it('keeps a range of numbers (rn > 1 AND rn <= 3, BETWEEN, =, <), with the number in the output or not', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE VIEW scores AS SELECT * FROM (VALUES ('a', 5, 1), ('a', 9, 2), ('a', 7, 3), ('a', 8, 4), ('b', 1, 5), ('b', 2, 6), ('b', 3, 7)) AS t(k, v, id)`);
    const ranked = (filter: string, columns = 'k, id, rn'): Promise<Record<string, unknown>[]> =>
      engine.query(`SELECT ${columns} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM scores) WHERE ${filter}`);
    const second = [{ k: 'a', id: 4, rn: 2 }, { k: 'b', id: 6, rn: 2 }];
    const third = [{ k: 'a', id: 3, rn: 3 }, { k: 'b', id: 5, rn: 3 }];
    expect(sort(await ranked('rn > 1 AND rn <= 3'))).toEqual(sort([...second, ...third]));
    expect(sort(await ranked('rn BETWEEN 2 AND 3'))).toEqual(sort([...second, ...third]));
    expect(sort(await ranked('3 >= rn AND 1 < rn'))).toEqual(sort([...second, ...third]));
    expect(sort(await ranked('rn = 3'))).toEqual(sort(third));
    expect(sort(await ranked('rn < 3 AND rn >= 2'))).toEqual(sort(second));
    expect(sort(await ranked('rn BETWEEN 2 AND 3', 'k, id'))).toEqual(sort([...second, ...third].map(({ k, id }) => ({ k, id }))));
    expect(sort(await ranked('rn BETWEEN 2 AND 3 AND id <> 4', 'id'))).toEqual(sort([{ id: 6 }, { id: 3 }, { id: 5 }]));
    expect(await ranked('rn > 3 AND rn < 4')).toEqual([]);
  });

  it('partitions and orders by expressions, NULLs where NULLS FIRST / LAST or the default puts them', async () => {
    const engine = createEngine();
    await engine.execute(`CREATE VIEW readings AS SELECT * FROM (VALUES (1, 12, CAST(NULL AS INT)), (2, 21, 5), (3, 13, -5), (4, 24, 1), (5, 15, CAST(NULL AS INT)), (6, 26, 7)) AS t(id, sensor, v)`);
    const top = (over: string): Promise<Record<string, unknown>[]> =>
      engine.query(`SELECT id, rn FROM (SELECT id, ROW_NUMBER() OVER (${over}) AS rn FROM readings) WHERE rn <= 2`);
    // sensor / 10: 1 for ids 1, 3, 5; 2 for ids 2, 4, 6.
    expect(sort(await top('PARTITION BY sensor / 10 ORDER BY v'))).toEqual(sort([{ id: 1, rn: 1 }, { id: 5, rn: 2 }, { id: 4, rn: 1 }, { id: 2, rn: 2 }]));
    expect(sort(await top('PARTITION BY sensor / 10 ORDER BY v NULLS LAST'))).toEqual(sort([{ id: 3, rn: 1 }, { id: 1, rn: 2 }, { id: 4, rn: 1 }, { id: 2, rn: 2 }]));
    expect(sort(await top('PARTITION BY sensor / 10 ORDER BY v DESC'))).toEqual(sort([{ id: 3, rn: 1 }, { id: 1, rn: 2 }, { id: 6, rn: 1 }, { id: 2, rn: 2 }]));
    expect(sort(await top('PARTITION BY sensor / 10 ORDER BY v DESC NULLS FIRST'))).toEqual(sort([{ id: 1, rn: 1 }, { id: 5, rn: 2 }, { id: 6, rn: 1 }, { id: 2, rn: 2 }]));
    expect(sort(await top('ORDER BY COALESCE(v, 0) * -1, id'))).toEqual(sort([{ id: 6, rn: 1 }, { id: 2, rn: 2 }]));
  });

  it('numbers every row when no upper bound makes a Top-N (the general OVER operator)', async () => {
    const engine = createEngine();
    const values = '(VALUES (1, 5), (1, 2), (1, 9), (1, 7), (2, 4)) AS t(k, v)';
    const cases: [string, [number, number][]][] = [
      ['', [[2, 1], [5, 2], [7, 3], [9, 4], [4, 1]]],
      ['WHERE rn > 2', [[7, 3], [9, 4]]],
      ['WHERE rn <> 3', [[2, 1], [5, 2], [9, 4], [4, 1]]],
      ['WHERE rn <= id', [[2, 1], [5, 2], [7, 3], [9, 4], [4, 1]]],
    ];
    for (const [where, expected] of cases) {
      const rows = await engine.query(`SELECT * FROM (SELECT k, v AS id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM ${values}) ${where}`);
      expect(rows.map((r) => [r.id, r.rn]).sort()).toEqual(expected.sort());
    }
  });
});
