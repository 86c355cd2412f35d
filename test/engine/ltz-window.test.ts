/**
 * Window TVFs over a TIMESTAMP_LTZ event-time attribute in a session zone (Flink's windows over
 * TIMESTAMP_LTZ): windows are laid on the zone's wall clock — a 1-day TUMBLE in Asia/Shanghai
 * starts at local midnight (16:00 UTC), a day in America/New_York that leaves daylight saving
 * time is 25 hours long — window_start and window_end are wall-clock TIMESTAMPs and window_time
 * the window's last instant, a TIMESTAMP_LTZ. Every result is checked against a hand-written
 * model of the zone's offsets over out-of-order rows with watermarks (a window closed too early
 * would drop rows as late and miss the model).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { LocalZonedTimestamp } from '../../src/engine/api-values.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Event {
  readonly price: number;
  readonly ms: number;
}

/** Events every `step` ms (each up to 900 ms before the previous one's slot, within the 1 s watermark) from `from` to `to`. */
function events(from: number, to: number, step: number, seed: number): Event[] {
  let state = seed;
  const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: Event[] = [];
  for (let t = from, i = 0; t < to; t += step, i++) out.push({ price: ((i * 37 + seed) % 1009) + 1, ms: t + Math.floor(next() * 900) });
  return out;
}

async function engineIn(zone: string, rows: readonly Event[], perFile = 10) {
  const root = mkdtempSync(join(tmpdir(), 'weir-ltz-window-'));
  const dir = join(root, 'ev');
  mkdirSync(dir);
  for (let f = 0; f * perFile < rows.length; f++) {
    writeFileSync(join(dir, `${String(f).padStart(4, '0')}.csv`), rows.slice(f * perFile, (f + 1) * perFile).map((e) => `${e.price},${e.ms}`).join('\n') + '\n');
  }
  const warnings: string[] = [];
  const engine = createEngine({ onWarning: (m) => warnings.push(m) });
  await engine.execute(`SET 'table.local-time-zone' = '${zone}'`);
  await engine.execute(`CREATE TABLE ev (price INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '${dir}', 'format' = 'csv')`);
  return { engine, warnings };
}

const millis = (v: unknown): number => (v as Date).getTime();
const sorted = (rows: readonly unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

/** Counts and sums per window of the model: `windows(t)` lists the wall-clock windows [start, end) of an event at instant t. */
function model(rows: readonly Event[], windows: (t: number) => [number, number][]): unknown[][] {
  const acc = new Map<string, [number, number]>();
  for (const e of rows) {
    for (const w of windows(e.ms)) {
      const key = JSON.stringify(w);
      const [n, sum] = acc.get(key) ?? [0, 0];
      acc.set(key, [n + 1, sum + e.price]);
    }
  }
  return [...acc].map(([w, [n, sum]]) => [...(JSON.parse(w) as number[]), n, sum]);
}

/** Shanghai is UTC+8 (no daylight saving since 1992). */
const shanghai = (t: number): number => t + 8 * HOUR;

/** New York in 2021: UTC-4 from 2021-03-14 07:00Z to 2021-11-07 06:00Z, else UTC-5. */
const newYork = (t: number): number => t + (t >= Date.UTC(2021, 2, 14, 7) && t < Date.UTC(2021, 10, 7, 6) ? -4 : -5) * HOUR;

const floorTo = (t: number, unit: number): number => Math.floor(t / unit) * unit;

describe('window TVFs over TIMESTAMP_LTZ in the session zone', () => {
  it('Asia/Shanghai: a 1-day TUMBLE starts at local midnight, with HOP and CUMULATE laid on the same clock', async () => {
    const rows = events(Date.UTC(2021, 5, 1, 3), Date.UTC(2021, 5, 5, 20), 37 * 60_000, 3);
    const { engine, warnings } = await engineIn('Asia/Shanghai', rows);
    const tumble = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end",
    );
    const day = (t: number): [number, number][] => [[floorTo(shanghai(t), DAY), floorTo(shanghai(t), DAY) + DAY]];
    expect(sorted(tumble.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(model(rows, day)));
    // Local midnight of 2021-06-02 is 2021-06-01 16:00 UTC; window_start is the wall-clock TIMESTAMP 2021-06-02 00:00:00.
    expect(tumble.map((r) => millis(r.window_start))).toContain(Date.UTC(2021, 5, 2));

    const hop = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '6' HOUR, INTERVAL '1' DAY)) GROUP BY window_start, window_end",
    );
    const hops = (t: number): [number, number][] => {
      const local = shanghai(t);
      const out: [number, number][] = [];
      for (let start = floorTo(local, 6 * HOUR); start > local - DAY; start -= 6 * HOUR) out.push([start, start + DAY]);
      return out;
    };
    expect(sorted(hop.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(model(rows, hops)));

    const cumulate = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '6' HOUR, INTERVAL '1' DAY)) GROUP BY window_start, window_end",
    );
    const cumulates = (t: number): [number, number][] => {
      const local = shanghai(t);
      const start = floorTo(local, DAY);
      const out: [number, number][] = [];
      for (let end = floorTo(local, 6 * HOUR) + 6 * HOUR; end <= start + DAY; end += 6 * HOUR) out.push([start, end]);
      return out;
    };
    expect(sorted(cumulate.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(model(rows, cumulates)));
    expect(warnings.filter((w) => w.includes('late'))).toEqual([]);
  });

  it('Asia/Shanghai: the TVF as a table gives wall-clock bounds, window_time as the last instant, and the row time shown in the zone', async () => {
    const rows = events(Date.UTC(2021, 5, 1, 14), Date.UTC(2021, 5, 2, 10), 53 * 60_000, 5);
    const { engine } = await engineIn('Asia/Shanghai', rows);
    const types = await engine.query("SELECT TYPEOF(window_start) AS s, TYPEOF(window_end) AS e, TYPEOF(window_time) AS t FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY)) LIMIT 1");
    expect(types).toEqual([{ s: 'TIMESTAMP(3) NOT NULL', e: 'TIMESTAMP(3) NOT NULL', t: 'TIMESTAMP_LTZ(3) NOT NULL *ROWTIME*' }]);
    const table = await engine.query("SELECT price, CAST(ts AS STRING) AS local, window_start, window_end, window_time FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY))");
    const expected = rows.map((e) => {
      const start = floorTo(shanghai(e.ms), DAY);
      const local = new Date(shanghai(e.ms)).toISOString().replace('T', ' ').replace('Z', '');
      return [e.price, local, start, start + DAY, start + DAY - 8 * HOUR - 1];
    });
    expect(sorted(table.map((r) => [r.price, r.local, millis(r.window_start), millis(r.window_end), millis(r.window_time)]))).toEqual(sorted(expected));
    // window_time is a TIMESTAMP_LTZ: the API gives it as an instant that shows in the zone.
    const first = table[0]!.window_time;
    expect(first).toBeInstanceOf(LocalZonedTimestamp);
    expect((first as LocalZonedTimestamp).toZonedString()).toMatch(/^2021-06-0[12] 23:59:59\.999$/);
  });

  it('America/New_York: the days that enter and leave daylight saving time are 23 and 25 hours long', async () => {
    const rows = [
      ...events(Date.UTC(2021, 2, 12, 20), Date.UTC(2021, 2, 16, 6), 29 * 60_000, 11),
      ...events(Date.UTC(2021, 10, 5, 20), Date.UTC(2021, 10, 9, 6), 29 * 60_000, 13),
    ];
    const { engine, warnings } = await engineIn('America/New_York', rows);
    const tumble = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end",
    );
    const day = (t: number): [number, number][] => [[floorTo(newYork(t), DAY), floorTo(newYork(t), DAY) + DAY]];
    const expected = model(rows, day);
    expect(sorted(tumble.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(expected));
    // Rows every 29 minutes: the 25-hour day holds more rows than its neighbours, the 23-hour day fewer.
    const count = (date: number): number => tumble.find((r) => millis(r.window_start) === date)!.n as number;
    expect(Number(count(Date.UTC(2021, 10, 7)))).toBeGreaterThan(Number(count(Date.UTC(2021, 10, 8))));
    expect(Number(count(Date.UTC(2021, 2, 14)))).toBeLessThan(Number(count(Date.UTC(2021, 2, 15))));

    const hourly = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end",
    );
    // In the repeated hour (01:00-02:00 on 2021-11-07) both passes fall into the one wall-clock window.
    const hour = (t: number): [number, number][] => [[floorTo(newYork(t), HOUR), floorTo(newYork(t), HOUR) + HOUR]];
    expect(sorted(hourly.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(model(rows, hour)));
    expect(warnings.filter((w) => w.includes('late'))).toEqual([]);
  });

  it('America/New_York: a window Top-N and a window join close their wall-clock windows by the watermark read on that clock', async () => {
    const rows = events(Date.UTC(2021, 10, 5, 20), Date.UTC(2021, 10, 9, 6), 23 * 60_000, 29);
    const { engine, warnings } = await engineIn('America/New_York', rows, 7);
    const startOf = (t: number): number => floorTo(newYork(t), HOUR * 6);
    const top = await engine.query(`SELECT window_start, price, rn FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
        FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '6' HOUR))) WHERE rn <= 2`);
    const byWindow = new Map<number, number[]>();
    for (const e of rows) byWindow.set(startOf(e.ms), [...(byWindow.get(startOf(e.ms)) ?? []), e.price]);
    const expectedTop = [...byWindow].flatMap(([start, prices]) => [...prices].sort((a, b) => b - a).slice(0, 2).map((p, i) => [start, p, i + 1]));
    expect(sorted(top.map((r) => [millis(r.window_start), r.price, Number(r.rn)]))).toEqual(sorted(expectedTop));

    const joined = await engine.query(`SELECT L.window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '6' HOUR)) L
        JOIN (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '6' HOUR)) WHERE price < 300) R
        ON L.window_start = R.window_start AND L.window_end = R.window_end GROUP BY L.window_start`);
    const expectedJoin = [...byWindow].map(([start, prices]) => [start, prices.length * prices.filter((p) => p < 300).length]).filter(([, n]) => n! > 0);
    expect(sorted(joined.map((r) => [millis(r.window_start), Number(r.n)]))).toEqual(sorted(expectedJoin));
    expect(warnings.filter((w) => w.includes('late'))).toEqual([]);
  });

  it('Asia/Shanghai: SESSION windows show their bounds on the wall clock', async () => {
    // Bursts of rows 1 minute apart, bursts 20 minutes apart: sessions of a 5-minute gap are the bursts.
    const rows: Event[] = [];
    for (let burst = 0; burst < 12; burst++) for (let i = 0; i <= burst % 4; i++) rows.push({ price: burst * 10 + i, ms: Date.UTC(2021, 5, 1, 15) + burst * 20 * 60_000 + i * 60_000 });
    const { engine } = await engineIn('Asia/Shanghai', rows, 3);
    const sessions = await engine.query(
      "SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' MINUTE)) GROUP BY window_start, window_end",
    );
    const expected = Array.from({ length: 12 }, (_, burst) => {
      const members = rows.filter((e) => e.price >= burst * 10 && e.price < burst * 10 + 10);
      const first = Math.min(...members.map((e) => e.ms));
      const last = Math.max(...members.map((e) => e.ms));
      return [shanghai(first), shanghai(last + 5 * 60_000), members.length, members.reduce((a, e) => a + e.price, 0)];
    });
    expect(sorted(sessions.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(expected));
  });

  it('UTC keeps windows on UTC (the job graph records no zone)', async () => {
    const rows = events(Date.UTC(2021, 5, 1, 3), Date.UTC(2021, 5, 3, 20), 41 * 60_000, 17);
    const { engine } = await engineIn('UTC', rows);
    const tumble = await engine.query("SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS s FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end");
    const day = (t: number): [number, number][] => [[floorTo(t, DAY), floorTo(t, DAY) + DAY]];
    expect(sorted(tumble.map((r) => [millis(r.window_start), millis(r.window_end), Number(r.n), Number(r.s)]))).toEqual(sorted(model(rows, day)));
  });
});
