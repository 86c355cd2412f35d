/**
 * Window TVFs as tables, window Top-N and window join on bounded, out-of-order CSV sources with
 * watermarks (each file is one batch, so watermarks advance between files): every result equals a
 * hand-written computation over the same rows; a row arriving after its window fired is dropped
 * and reported.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const BASE = Date.UTC(2026, 0, 1);
const SECOND = 1000;

interface Event {
  readonly item: string;
  readonly price: number;
  readonly ts: number;
}

/** `n` events about every 500 ms, each up to 900 ms late against the previous (never behind the 1 s watermark), distinct prices. */
function events(n: number, seed: number): Event[] {
  let state = seed;
  const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: n }, (_, i) => ({ item: `i${Math.floor(next() * 4)}`, price: ((i * 37 + seed) % 1009) + 1, ts: BASE + i * 500 + Math.floor(next() * 900) }));
}

const csvTime = (t: number): string => new Date(t).toISOString().replace('T', ' ').replace('Z', '');

/** A directory with the events in files of `perFile` rows, read in order. */
function directory(root: string, name: string, rows: readonly Event[], perFile: number): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (let f = 0; f * perFile < rows.length; f++) {
    const lines = rows.slice(f * perFile, (f + 1) * perFile).map((e) => `${e.item},${e.price},${csvTime(e.ts)}`);
    writeFileSync(join(dir, `${String(f).padStart(3, '0')}.csv`), lines.join('\n') + '\n');
  }
  return dir;
}

async function engineWith(tables: Record<string, readonly Event[]>, perFile = 15, parallelism = 1) {
  const root = mkdtempSync(join(tmpdir(), 'weir-window-tvf-'));
  const warnings: string[] = [];
  const engine = createEngine({ onWarning: (m) => warnings.push(m) });
  await engine.execute(`SET 'parallelism.default' = '${parallelism}'`);
  for (const [name, rows] of Object.entries(tables)) {
    await engine.execute(`CREATE TABLE ${name} (item STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
      WITH ('connector' = 'filesystem', 'path' = '${directory(root, name, rows, perFile)}', 'format' = 'csv')`);
  }
  return { engine, warnings };
}

const millis = (v: unknown): number => (v as Date).getTime();
const sorted = (rows: readonly unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

/** The windows [start, end) containing `t`, enumerated from the definitions (independently of the engine's assigner). */
function windowsOf(kind: 'TUMBLE' | 'HOP' | 'CUMULATE', t: number): [number, number][] {
  const candidates: [number, number][] = [];
  for (let start = -10 * SECOND; start <= t - BASE; start += kind === 'HOP' ? 2 * SECOND : 10 * SECOND) {
    if (kind === 'CUMULATE') for (let end = start + 5 * SECOND; end <= start + 10 * SECOND; end += 5 * SECOND) candidates.push([BASE + start, BASE + end]);
    else candidates.push([BASE + start, BASE + start + 10 * SECOND]);
  }
  return candidates.filter(([s, e]) => s <= t && t < e);
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}

const CALLS = {
  TUMBLE: "TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
  HOP: "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
  CUMULATE: "CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
} as const;

describe('window TVFs as tables', () => {
  for (const kind of ['TUMBLE', 'HOP', 'CUMULATE'] as const) {
    it(`${kind}: each row once per window containing it, with window_start, window_end and window_time`, async () => {
      const bids = events(90, 7);
      const { engine } = await engineWith({ bids });
      const ops = new Set<string>();
      const rows: unknown[][] = [];
      for await (const { op, row } of engine.subscribe(`SELECT item, price, ts, window_start, window_end, window_time FROM TABLE(${CALLS[kind]})`)) {
        ops.add(op);
        rows.push([row.item, row.price, millis(row.ts), millis(row.window_start), millis(row.window_end), millis(row.window_time)]);
      }
      const expected = bids.flatMap((b) => windowsOf(kind, b.ts).map(([s, e]) => [b.item, b.price, b.ts, s, e, e - 1]));
      expect(ops).toEqual(new Set(['+I']));
      expect(sorted(rows)).toEqual(sorted(expected));
      const firstHalf = bids.filter((b) => (b.ts - BASE) % (10 * SECOND) < 5 * SECOND).length;
      expect(rows.length).toBe({ TUMBLE: bids.length, HOP: bids.length * 5, CUMULATE: bids.length + firstHalf }[kind]);
    });
  }
});

describe('window offset', () => {
  it('shifts event-time windows: a TUMBLE of 10 s with offset 3 s (or -7 s) aggregates [3 s, 13 s), [13 s, 23 s), ... once at the watermark', async () => {
    const bids = events(120, 17);
    const { engine } = await engineWith({ bids });
    const expected = [...groupBy(bids, (b) => BASE + Math.floor((b.ts - BASE - 3 * SECOND) / (10 * SECOND)) * 10 * SECOND + 3 * SECOND)].map(([start, list]) => [start, start + 10 * SECOND, list.length]);
    for (const offset of ["INTERVAL '3' SECOND", "INTERVAL '-7' SECOND"]) {
      const ops = new Set<string>();
      const rows: unknown[][] = [];
      for await (const { op, row } of engine.subscribe(`SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND, ${offset})) GROUP BY window_start, window_end`)) {
        ops.add(op);
        rows.push([millis(row.window_start), millis(row.window_end), row.n]);
      }
      expect(ops).toEqual(new Set(['+I']));
      expect(sorted(rows)).toEqual(sorted(expected));
    }
  });

  it('shifts HOP and CUMULATE windows (sliced by the window aggregation) by the offset', async () => {
    const bids = events(120, 19);
    const { engine } = await engineWith({ bids });
    // Windows [start, end) enumerated from their definitions: HOP 10 s every 2 s from 1 s; CUMULATE of 10 s in 5 s steps from 3 s.
    const shifted = (kind: 'HOP' | 'CUMULATE', t: number): [number, number][] => {
      const out: [number, number][] = [];
      for (let start = -20 * SECOND; start <= t - BASE; start += kind === 'HOP' ? 2 * SECOND : 10 * SECOND) {
        const s0 = BASE + start + (kind === 'HOP' ? 1 : 3) * SECOND;
        if (kind === 'HOP') out.push([s0, s0 + 10 * SECOND]);
        else out.push([s0, s0 + 5 * SECOND], [s0, s0 + 10 * SECOND]);
      }
      return out.filter(([s, e]) => s <= t && t < e);
    };
    const calls = {
      HOP: "HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND, INTERVAL '1' SECOND)",
      CUMULATE: "CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND, INTERVAL '3' SECOND)",
    };
    for (const kind of ['HOP', 'CUMULATE'] as const) {
      const counts = new Map<string, number>();
      for (const b of bids) for (const w of shifted(kind, b.ts)) counts.set(JSON.stringify(w), (counts.get(JSON.stringify(w)) ?? 0) + 1);
      const expected = [...counts].map(([w, n]) => [...(JSON.parse(w) as number[]), n]);
      const rows = await engine.query(`SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(${calls[kind]}) GROUP BY window_start, window_end`);
      expect(sorted(rows.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n)])), kind).toEqual(sorted(expected));
    }
  });
});

describe('window_time', () => {
  it('is a rowtime attribute: a 20 s window over the 10 s windows of a TVF counts each row once', async () => {
    const bids = events(120, 13);
    const { engine } = await engineWith({ bids });
    await engine.execute(`CREATE VIEW tens AS SELECT item, window_time FROM TABLE(${CALLS.TUMBLE})`);
    const rows = await engine.query("SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE tens, DESCRIPTOR(window_time), INTERVAL '20' SECOND)) GROUP BY window_start, window_end");
    const expected = [...groupBy(bids, (b) => BASE + Math.floor((b.ts - BASE) / (20 * SECOND)) * 20 * SECOND)].map(([start, list]) => [start, list.length]);
    expect(sorted(rows.map((r) => [millis(r.window_start), r.n]))).toEqual(sorted(expected));
  });
});

describe('window Top-N', () => {
  it.each([1, 2])('the 3 highest bids of every 10 s tumbling window (parallelism %i)', async (parallelism) => {
    const bids = events(120, 11);
    const { engine } = await engineWith({ bids }, 15, parallelism);
    const rows = await engine.query(`SELECT window_start, item, price, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn FROM TABLE(${CALLS.TUMBLE})
      ) WHERE rn <= 3`);
    const byWindow = groupBy(bids, (b) => windowsOf('TUMBLE', b.ts)[0]![0]);
    const expected = [...byWindow].flatMap(([start, inWindow]) => [...inWindow].sort((a, b) => b.price - a.price).slice(0, 3).map((b, i) => [start, b.item, b.price, i + 1]));
    expect(sorted(rows.map((r) => [millis(r.window_start), r.item, r.price, r.rn]))).toEqual(sorted(expected));
    expect(rows.length).toBe(byWindow.size * 3);
  });

  it('the 2 items with most bids per hopping window, over a window aggregation', async () => {
    const bids = events(120, 5);
    const { engine } = await engineWith({ bids });
    const rows = await engine.query(`SELECT window_start, item, n, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n DESC, item) AS rn FROM (
          SELECT window_start, window_end, item, COUNT(*) AS n FROM TABLE(${CALLS.HOP}) GROUP BY window_start, window_end, item
        )
      ) WHERE rn <= 2`);
    const counts = new Map<number, Map<string, number>>();
    for (const b of bids) {
      for (const [start] of windowsOf('HOP', b.ts)) {
        const perItem = counts.get(start) ?? new Map<string, number>();
        counts.set(start, perItem.set(b.item, (perItem.get(b.item) ?? 0) + 1));
      }
    }
    const expected = [...counts].flatMap(([start, perItem]) =>
      [...perItem]
        .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1))
        .slice(0, 2)
        .map(([item, n], i) => [start, item, n, i + 1]),
    );
    expect(sorted(rows.map((r) => [millis(r.window_start), r.item, r.n, r.rn]))).toEqual(sorted(expected));
  });

  it('drops a row that arrives after its window fired, and reports it', async () => {
    const at = (s: number): number => BASE + s * SECOND;
    // The first file moves the watermark to 24 s, closing [0 s, 10 s); the 9999 bid at 3 s comes after.
    const bids: Event[] = [
      { item: 'a', price: 10, ts: at(1) },
      { item: 'b', price: 20, ts: at(2) },
      { item: 'c', price: 30, ts: at(25) },
      { item: 'late', price: 9999, ts: at(3) },
      { item: 'd', price: 40, ts: at(26) },
    ];
    const { engine, warnings } = await engineWith({ bids }, 3);
    const rows = await engine.query(`SELECT window_start, item, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn FROM TABLE(${CALLS.TUMBLE})
      ) WHERE rn <= 3`);
    expect(sorted(rows.map((r) => [millis(r.window_start), r.item, r.rn]))).toEqual(sorted([[at(0), 'b', 1], [at(0), 'a', 2], [at(20), 'd', 1], [at(20), 'c', 2]]));
    expect(warnings.filter((w) => w.includes('window rank') && w.includes('late'))).toHaveLength(1);
  });
});

describe('window join', () => {
  it.each([1, 2])('joins bids and asks of the same item within the same 10 s window (parallelism %i)', async (parallelism) => {
    const bids = events(100, 3);
    const asks = events(80, 17);
    const { engine } = await engineWith({ bids, asks }, 15, parallelism);
    const rows = await engine.query(`SELECT b.window_start, b.item, b.price AS bid, a.price AS ask
      FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) b
      JOIN TABLE(TUMBLE(TABLE asks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) a
      ON b.item = a.item AND b.window_start = a.window_start AND b.window_end = a.window_end`);
    const windowOf = (e: Event): number => windowsOf('TUMBLE', e.ts)[0]![0];
    const expected = bids.flatMap((b) => asks.filter((a) => a.item === b.item && windowOf(a) === windowOf(b)).map((a) => [windowOf(b), b.item, b.price, a.price]));
    const actual = rows.map((r) => [millis(r.window_start), r.item, r.bid, r.ask]);
    expect(sorted(actual)).toEqual(sorted(expected));
    const perWindow = (list: unknown[][]): Record<string, number> => Object.fromEntries([...groupBy(list, (r) => r[0])].map(([w, l]) => [String(w), l.length]));
    expect(perWindow(actual)).toEqual(perWindow(expected));
    expect(Object.keys(perWindow(expected)).length).toBeGreaterThan(3);
  });

  it.each([1, 2])('joins two window aggregations (Nexmark q8 shape) at parallelism %i: items bid on and asked for in the same window', async (parallelism) => {
    const bids = events(100, 23);
    const asks = events(60, 29);
    const { engine } = await engineWith({ bids, asks }, 15, parallelism);
    const rows = await engine.query(`SELECT B.item, B.starttime, B.n, A.n AS asked FROM (
        SELECT item, window_start AS starttime, window_end AS endtime, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY item, window_start, window_end
      ) B JOIN (
        SELECT item, window_start AS starttime, window_end AS endtime, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE asks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY item, window_start, window_end
      ) A ON B.item = A.item AND B.starttime = A.starttime AND B.endtime = A.endtime`);
    const count = (list: readonly Event[]): Map<string, number> => {
      const m = new Map<string, number>();
      for (const e of list) m.set(`${e.item}@${windowsOf('TUMBLE', e.ts)[0]![0]}`, (m.get(`${e.item}@${windowsOf('TUMBLE', e.ts)[0]![0]}`) ?? 0) + 1);
      return m;
    };
    const asked = count(asks);
    const expected = [...count(bids)].filter(([k]) => asked.has(k)).map(([k, n]) => [k.split('@')[0], Number(k.split('@')[1]), n, asked.get(k)]);
    expect(sorted(rows.map((r) => [r.item, millis(r.starttime), r.n, r.asked]))).toEqual(sorted(expected));
    expect(expected.length).toBeGreaterThan(5);
  });
});
