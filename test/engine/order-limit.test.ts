/**
 * ORDER BY ... LIMIT / OFFSET / FETCH and LIMIT in streaming queries (Flink's SortLimit and Limit):
 * the final table equals the batch answer over the same rows and comes back in the query's order,
 * an updating input is followed, expressions and dropped FROM columns order the rows, NULLs go
 * where Flink (or NULLS FIRST / LAST) puts them, and the forms a stream cannot answer are refused
 * with their position.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const SOURCE = `CREATE TABLE src (k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2000', 'seed' = '7',
  'fields.k.min' = '1', 'fields.k.max' = '60', 'fields.v.min' = '0', 'fields.v.max' = '1000000')`;

describe('ORDER BY and LIMIT', () => {
  it('keeps the first rows in order over an insert-only input (ascending, by position, and descending)', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = (await engine.query('SELECT k, v FROM src')) as { k: number; v: number }[];
    const byV = [...all].sort((a, b) => b.v - a.v || a.k - b.k);
    expect(new Set(byV.slice(0, 6).map((r) => r.v)).size).toBe(6);
    const top = await engine.query('SELECT v, k FROM src ORDER BY v DESC LIMIT 5');
    expect(top.map((r) => r.v).sort((a, b) => Number(b) - Number(a))).toEqual(byV.slice(0, 5).map((r) => r.v));
    const bottom = await engine.query('SELECT k, v FROM src ORDER BY 2 LIMIT 3');
    expect(bottom.map((r) => r.v).sort((a, b) => Number(a) - Number(b))).toEqual([...all].sort((a, b) => a.v - b.v).slice(0, 3).map((r) => r.v));
  });

  it('follows an updating input: the top groups by their running sums', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = (await engine.query('SELECT k, v FROM src')) as { k: number; v: number }[];
    const sums = new Map<number, number>();
    for (const { k, v } of all) sums.set(k, (sums.get(k) ?? 0) + v);
    const expected = [...sums].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, total]) => ({ k, total }));
    const rows = await engine.query('SELECT k, SUM(v) AS total FROM src GROUP BY k ORDER BY total DESC LIMIT 4');
    expect([...rows].sort((a, b) => Number(b.total) - Number(a.total))).toEqual(expected);
  });

  it('orders the groups of an updating input by aggregates, selected or not, and by grouping columns not selected, dropping the columns it adds', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = (await engine.query('SELECT k, v FROM src')) as { k: number; v: number }[];
    const sums = new Map<number, number>();
    for (const { k, v } of all) sums.set(k, (sums.get(k) ?? 0) + v);
    const top = [...sums].sort((a, b) => b[1] - a[1]).slice(0, 3);
    const selected = await engine.query('SELECT k, SUM(v) AS total FROM src GROUP BY k ORDER BY SUM(v) DESC LIMIT 3');
    expect([...selected].sort((a, b) => Number(b.total) - Number(a.total))).toEqual(top.map(([k, total]) => ({ k, total })));
    const hidden = await engine.query('SELECT k FROM src GROUP BY k ORDER BY SUM(v) DESC, COUNT(*) LIMIT 3');
    expect(hidden.map((r) => r.k).sort()).toEqual(top.map(([k]) => k).sort());
    expect(Object.keys(hidden[0]!)).toEqual(['k']);
    const byKey = await engine.query('SELECT SUM(v) AS total FROM src GROUP BY k ORDER BY k DESC LIMIT 2');
    const lastKeys = [...sums].sort((a, b) => b[0] - a[0]).slice(0, 2);
    expect(byKey.map((r) => r.total).sort()).toEqual(lastKeys.map(([, total]) => total).sort());
  });

  it('LIMIT alone inside a query keeps the first rows to arrive', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = await engine.query('SELECT k, v FROM src');
    expect(await engine.query('SELECT * FROM (SELECT k, v FROM src LIMIT 25) WHERE k > 0')).toEqual(all.slice(0, 25));
  });

  it('LIMIT n OFFSET m, OFFSET m ROWS FETCH FIRST n ROWS ONLY and FETCH FIRST keep rows m+1 .. m+n in order, returned in that order', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = (await engine.query('SELECT k, v FROM src')) as { k: number; v: number }[];
    const byV = [...all].sort((a, b) => a.v - b.v || a.k - b.k);
    expect(new Set(byV.slice(0, 12).map((r) => r.v)).size).toBe(12);
    expect(await engine.query('SELECT k, v FROM src ORDER BY v LIMIT 4 OFFSET 3')).toEqual(byV.slice(3, 7));
    expect(await engine.query('SELECT k, v FROM src ORDER BY v OFFSET 5 ROWS FETCH NEXT 3 ROWS ONLY')).toEqual(byV.slice(5, 8));
    expect(await engine.query('SELECT k, v FROM src ORDER BY 2 FETCH FIRST 2 ROWS ONLY')).toEqual(byV.slice(0, 2));
    expect(await engine.query('SELECT k, v FROM src ORDER BY v FETCH FIRST ROW ONLY')).toEqual(byV.slice(0, 1));
    expect(await engine.query('SELECT k, v FROM src ORDER BY v LIMIT 0')).toEqual([]);
    expect(await engine.query('SELECT k, v FROM src ORDER BY v DESC LIMIT 3 OFFSET 1')).toEqual([...byV].reverse().slice(1, 4));
  });

  it('LIMIT n OFFSET m without ORDER BY keeps rows m+1 .. m+n to arrive', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = await engine.query('SELECT k, v FROM src');
    expect(await engine.query('SELECT * FROM (SELECT k, v FROM src LIMIT 5 OFFSET 20) WHERE k > 0')).toEqual(all.slice(20, 25));
  });

  it('orders by expressions and by FROM columns the select list drops (the final table then in arrival order)', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = (await engine.query('SELECT k, v FROM src')) as { k: number; v: number }[];
    const set = (rows: Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r)).sort();
    const byMod = [...all].sort((a, b) => (a.v % 7) - (b.v % 7) || b.v - a.v).slice(0, 3);
    expect(new Set(all.map((r) => r.v % 7)).size).toBe(7);
    expect(set(await engine.query('SELECT k, v FROM src ORDER BY MOD(v, 7), v DESC LIMIT 3'))).toEqual(set(byMod));
    expect(set(await engine.query('SELECT k FROM src ORDER BY MOD(v, 7), v DESC LIMIT 3'))).toEqual(set(byMod.map(({ k }) => ({ k }))));
    const bySum = [...all].sort((a, b) => b.v + b.k - (a.v + a.k)).slice(0, 2);
    expect(set(await engine.query('SELECT k AS key, v FROM src ORDER BY v + key DESC LIMIT 2'))).toEqual(set(bySum.map(({ k, v }) => ({ key: k, v }))));
  });

  it("puts NULLs first ascending and last descending by default (Flink's order), and where NULLS FIRST / LAST says", async () => {
    const engine = createEngine();
    await engine.execute(`CREATE VIEW t AS SELECT * FROM (VALUES (1, CAST(NULL AS INT)), (2, 5), (3, -5), (4, 0), (5, CAST(NULL AS INT)), (6, 7)) AS v(id, x)`);
    const ids = async (order: string): Promise<unknown[]> => (await engine.query(`SELECT id, x FROM t ORDER BY ${order}, id LIMIT 4`)).map((r) => r.id);
    expect(await ids('x')).toEqual([1, 5, 3, 4]);
    expect(await ids('x NULLS FIRST')).toEqual([1, 5, 3, 4]);
    expect(await ids('x NULLS LAST')).toEqual([3, 4, 2, 6]);
    expect(await ids('x DESC')).toEqual([6, 2, 4, 3]);
    expect(await ids('x DESC NULLS LAST')).toEqual([6, 2, 4, 3]);
    expect(await ids('x DESC NULLS FIRST')).toEqual([1, 5, 6, 2]);
    expect((await engine.query('SELECT id FROM t ORDER BY x DESC NULLS FIRST, id LIMIT 2 OFFSET 1')).map((r) => r.id)).toEqual([5, 6]);
  });

  it('refuses ORDER BY without LIMIT and OFFSET without LIMIT, saying where and what to write', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    await expect(engine.query('SELECT k FROM src ORDER BY k')).rejects.toMatchObject({ message: 'ORDER BY in a streaming query needs a LIMIT', span: { start: { line: 1, column: 28 } } });
    for (const sql of ['SELECT k FROM src ORDER BY k OFFSET 2', 'SELECT k FROM src OFFSET 2 ROWS']) {
      await expect(engine.query(sql)).rejects.toMatchObject({
        message: 'OFFSET without LIMIT is not supported in streaming queries',
        hint: expect.stringContaining('add LIMIT n (or FETCH FIRST n ROWS ONLY)'),
      });
    }
    await expect(engine.query('SELECT k FROM src ORDER BY 3 LIMIT 2')).rejects.toThrow('ORDER BY position 3 is not in the select list (1 to 1)');
    await expect(engine.query('SELECT k FROM src ORDER BY k LIMIT 2 OFFSET -1')).rejects.toThrow('OFFSET takes a non-negative integer');
  });
});
