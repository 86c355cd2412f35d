/**
 * CURRENT_WATERMARK(rowtime) over a bounded, out-of-order CSV source (each file one batch, so the
 * watermark advances between files): a projection sees the watermark its operator received before
 * the row — NULL before the first — whether the Calc is fused with the watermark assigner or runs
 * after a union; the late-row filter Flink's documentation suggests drops exactly the rows at or
 * behind it. A call on a column that is no rowtime attribute, or outside a projection or filter,
 * is refused when planned.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WeirError } from '../../src/common/errors.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';

const BASE = Date.UTC(2026, 0, 1);
const at = (seconds: number): number => BASE + seconds * 1000;
const csvTime = (t: number): string => new Date(t).toISOString().replace('T', ' ').replace('Z', '');

/** Files of [item, second] rows, read in order; the watermark is the largest time read so far minus 1 s. */
const FILES: readonly (readonly [string, number][])[] = [
  [
    ['a', 10],
    ['b', 12],
  ],
  [
    ['c', 11],
    ['d', 20],
    ['e', 8],
  ],
  [
    ['f', 19],
    ['g', 30],
    ['h', 25],
  ],
];

/** Per file, the watermark before it (the model: max time of the earlier files minus 1 s; none before the first). */
function watermarksBefore(): (number | null)[] {
  let max = -Infinity;
  return FILES.map((rows) => {
    const before = max === -Infinity ? null : at(max) - 1000;
    for (const [, second] of rows) max = Math.max(max, second);
    return before;
  });
}

async function engineWithEvents(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-current-watermark-'));
  const events = join(dir, 'events');
  mkdirSync(events);
  FILES.forEach((rows, f) => writeFileSync(join(events, `${f}.csv`), rows.map(([item, second]) => `${item},${csvTime(at(second))}`).join('\n') + '\n'));
  const engine = createEngine();
  await engine.execute(`CREATE TABLE events (item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '${events}', 'format' = 'csv')`);
  await engine.execute(`CREATE TABLE plain (item STRING, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '${events}', 'format' = 'csv')`);
  return engine;
}

const byItem = (rows: readonly Record<string, unknown>[]): Record<string, unknown>[] => [...rows].sort((a, b) => String(a.item).localeCompare(String(b.item)));
const millisOrNull = (v: unknown): number | null => (v === null ? null : (v as Date).getTime());

/** The expected rows: every event with the watermark before its file. */
function expectedWatermarks(): { item: string; wm: number | null }[] {
  const before = watermarksBefore();
  return FILES.flatMap((rows, f) => rows.map(([item]) => ({ item, wm: before[f]! })));
}

/** The items of rows after the watermark before their file (the model of the late-data filter). */
function onTimeItems(): string[] {
  const before = watermarksBefore();
  return FILES.flatMap((file, f) => file.filter(([, second]) => before[f] === null || at(second) > before[f]!).map(([item]) => item));
}

describe('CURRENT_WATERMARK', () => {
  it('is the watermark the projection received before each row, NULL before the first (a Calc fused with the assigner)', async () => {
    const engine = await engineWithEvents();
    const rows = await engine.query('SELECT item, CURRENT_WATERMARK(ts) AS wm, TYPEOF(CURRENT_WATERMARK(ts)) AS t FROM events');
    expect(byItem(rows).map((r) => ({ item: r.item, wm: millisOrNull(r.wm) }))).toEqual(expectedWatermarks());
    expect(new Set(rows.map((r) => r.t))).toEqual(new Set(['TIMESTAMP(3)']));
  });

  it('filters late rows after a union (a Calc of its own, fed the union’s watermark)', async () => {
    const engine = await engineWithEvents();
    const rows = await engine.query(
      'SELECT item FROM (SELECT item, ts FROM events UNION ALL SELECT item, ts FROM events) WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)',
    );
    // Both inputs of the union are the one (reused) source, so each row arrives twice, after the same watermark.
    expect(rows.map((r) => r.item).sort()).toEqual([...onTimeItems(), ...onTimeItems()].sort());
  });

  it('drops exactly the rows at or behind the watermark with the late-data filter', async () => {
    const engine = await engineWithEvents();
    const rows = await engine.query('SELECT item FROM events WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)');
    const onTime = onTimeItems();
    expect(rows.map((r) => r.item).sort()).toEqual([...onTime].sort());
    expect(onTime).not.toContain('c');
    expect(onTime).not.toContain('e');
  });

  it('is refused on a column that is no rowtime attribute, and outside a projection or filter', async () => {
    const engine = await engineWithEvents();
    await expect(engine.query('SELECT CURRENT_WATERMARK(ts) FROM plain')).rejects.toThrow(/CURRENT_WATERMARK needs a rowtime attribute .*got TIMESTAMP\(3\)/);
    const join = engine.query('SELECT a.item FROM events AS a JOIN plain AS b ON a.item = b.item AND b.ts > CURRENT_WATERMARK(a.ts)');
    await expect(join).rejects.toThrow(WeirError);
    await expect(join).rejects.toThrow(/CURRENT_WATERMARK can only be computed in a projection or a filter/);
  });
});
