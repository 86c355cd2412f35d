/**
 * GROUPING SETS, ROLLUP and CUBE in a window aggregation (`GROUP BY window_start, window_end,
 * ROLLUP(...)` over a window TVF) run as Flink runs them — an Expand below one WindowAggregate,
 * insert-only, each window emitted once — and give, per grouping set, the rows of the plain window
 * aggregation grouped by that set's columns (computed by the ordinary window aggregation path).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const BIDS = `CREATE TABLE bids (item STRING, shop STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '300', 'seed' = '7', 'fields.item.length' = '1', 'fields.shop.length' = '1',
        'fields.price.min' = '1', 'fields.price.max' = '9')`;

const key = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

describe('grouping sets in window aggregations', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-window-sets-'))));
  afterAll(() => process.chdir(home));

  const windowed = (select: string, groupBy: string): string =>
    `SELECT window_start, window_end, ${select} FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '2' HOUR)) GROUP BY window_start, window_end${groupBy === '' ? '' : `, ${groupBy}`}`;

  it('equals the union of the plain window aggregations of each set, insert-only', async () => {
    const engine = createEngine();
    await engine.execute(`${BIDS}; SET 'execution.runtime-mode' = 'batch'; SET 'parallelism.default' = '2';`);
    const aggregates = 'COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top';
    const cube = await engine.query(windowed(`item, shop, ${aggregates}, GROUPING(item, shop) AS g`, 'CUBE(item, shop)'));
    const sets: [string, string, number][] = [
      ['item, shop', 'item, shop', 0],
      ['item, CAST(NULL AS STRING) AS shop', 'item', 1],
      ['CAST(NULL AS STRING) AS item, shop', 'shop', 2],
      ['CAST(NULL AS STRING) AS item, CAST(NULL AS STRING) AS shop', '', 3],
    ];
    const expected: Record<string, unknown>[] = [];
    for (const [columns, groupBy, g] of sets) expected.push(...(await engine.query(windowed(`${columns}, ${aggregates}, ${g} AS g`, groupBy))));
    expect(expected.length).toBeGreaterThan(sets.length);
    expect(key(cube)).toEqual(key(expected));

    const [plan] = await engine.execute(`EXPLAIN ${windowed(`item, ${aggregates}`, 'ROLLUP(item)')}`);
    const text = plan?.kind === 'text' ? plan.text : '';
    expect(text).toContain('WindowAggregate(');
    expect(text).toContain('Expand(projects=[{item, price AS $f3, 0 AS $e, ts}, {null AS item, price AS $f3, 1 AS $e, ts}]');
    expect(text).not.toMatch(/changelogMode=\[I,/);
  });

  it('numbers the copies of a repeated set with GROUP_ID(): 0 for the first, 1 for the second', async () => {
    const engine = createEngine();
    await engine.execute(`${BIDS}; SET 'execution.runtime-mode' = 'batch';`);
    const rows = await engine.query(windowed('item, COUNT(*) AS n, GROUP_ID() AS gid', 'GROUPING SETS ((item), (item), ())'));
    const byItem = await engine.query(windowed('item, COUNT(*) AS n', 'item'));
    const total = await engine.query(windowed('CAST(NULL AS STRING) AS item, COUNT(*) AS n', ''));
    const expected = [...byItem.map((r) => ({ ...r, gid: 0 })), ...byItem.map((r) => ({ ...r, gid: 1 })), ...total.map((r) => ({ ...r, gid: 0 }))];
    expect(byItem.length).toBeGreaterThan(1);
    expect(key(rows)).toEqual(key(expected));
  });

  it('refuses grouping sets that drop window_start or window_end, and SESSION windows', async () => {
    const engine = createEngine();
    await engine.execute(`${BIDS}; SET 'execution.runtime-mode' = 'batch';`);
    await expect(engine.query("SELECT item, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY ROLLUP(window_start, window_end, item)")).rejects.toThrow(
      'must include window_start and window_end',
    );
    await expect(
      engine.query("SELECT item, COUNT(*) AS n FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end, GROUPING SETS ((item), (item))"),
    ).rejects.toThrow('not supported over SESSION windows');
  });
});
