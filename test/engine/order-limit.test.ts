/**
 * ORDER BY ... LIMIT and LIMIT in streaming queries (Flink's global Top-N and Limit): the final
 * table equals the batch answer over the same rows, an updating input is followed, and the forms
 * a stream cannot answer are refused with their position.
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

  it('LIMIT alone inside a query keeps the first rows to arrive', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    const all = await engine.query('SELECT k, v FROM src');
    expect(await engine.query('SELECT * FROM (SELECT k, v FROM src LIMIT 25) WHERE k > 0')).toEqual(all.slice(0, 25));
  });

  it('refuses ORDER BY without LIMIT, OFFSET and ordering by an expression, saying where', async () => {
    const engine = createEngine();
    await engine.execute(SOURCE);
    await expect(engine.query('SELECT k FROM src ORDER BY k')).rejects.toMatchObject({ message: 'ORDER BY in a streaming query needs a LIMIT', span: { start: { line: 1, column: 28 } } });
    await expect(engine.query('SELECT k FROM src ORDER BY k LIMIT 2 OFFSET 1')).rejects.toThrow('OFFSET is not supported in streaming queries');
    await expect(engine.query('SELECT k FROM src ORDER BY k + 1 LIMIT 2')).rejects.toThrow('ORDER BY in a streaming query takes columns of the select list');
    await expect(engine.query('SELECT k FROM src ORDER BY 3 LIMIT 2')).rejects.toThrow('ORDER BY position 3 is not in the select list (1 to 1)');
  });
});
