/**
 * Windows and OVER aggregates over a plain TIMESTAMP(6) column (microseconds; epoch nanos at run
 * time), in batch and streaming mode, against a model computed on bigint microseconds:
 * - TUMBLE, HOP and CUMULATE: a row is in the windows of its millisecond (the bounds are whole
 *   milliseconds), window_start/window_end are TIMESTAMP(3) and window_time keeps the column's
 *   type, TIMESTAMP(6) (window_end - 1 ms), as Flink's SqlWindowTableFunction types them;
 * - OVER ordered by it: RANGE peers are rows of the same microsecond (not of the same
 *   millisecond), and a RANGE INTERVAL frame reaches back exactly its interval, to the microsecond;
 * - a WATERMARK on it is refused, as in Flink (a rowtime keeps milliseconds).
 * Times come in steps of 250 µs, so four distinct times share each millisecond.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';

const ROWS = 600;
const BASE_MICROS = 1_700_000_000_000_000n;

/** Row `id`: its partition, value and time in microseconds (97 distinct times, ties across ids 291 apart). */
const partitionOf = (id: number): number => id % 3;
const microsOf = (id: number): bigint => BASE_MICROS + BigInt(((id * 37) % 97) * 250);

const DDL = `CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '${ROWS}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
  CREATE VIEW stamped AS SELECT id, MOD(id, 3) AS k,
    CAST(TO_TIMESTAMP_LTZ(${BASE_MICROS} + MOD(id * 37, 97) * 250, 6) AS TIMESTAMP(6)) AS ts FROM src;
  CREATE VIEW per_time AS SELECT k, ts, SUM(id) AS x FROM stamped GROUP BY k, ts;`;

/** `yyyy-MM-dd HH:mm:ss.fff` of epoch milliseconds, then `extra` more fraction digits. */
function text(millis: bigint, extra = ''): string {
  return new Date(Number(millis)).toISOString().replace('T', ' ').replace('Z', '') + extra;
}

const floorTo = (value: bigint, unit: bigint): bigint => value - (((value % unit) + unit) % unit);

interface Row {
  readonly id: number;
  readonly k: number;
  readonly micros: bigint;
}

const SIZE = 10n;
const SLIDE = 5n;

/** The windows (start, end in ms) of each kind holding epoch millisecond `t`: TUMBLE 10 ms, HOP 5 ms slide 10 ms size, CUMULATE 5 ms step 10 ms size. */
function windowsOf(kind: 'TUMBLE' | 'HOP' | 'CUMULATE', t: bigint): [bigint, bigint][] {
  if (kind === 'TUMBLE') return [[floorTo(t, SIZE), floorTo(t, SIZE) + SIZE]];
  if (kind === 'HOP') {
    const last = floorTo(t, SLIDE);
    return [last, last - SLIDE].filter((start) => start + SIZE > t).map((start) => [start, start + SIZE]);
  }
  const start = floorTo(t, SIZE);
  const ends: [bigint, bigint][] = [];
  for (let end = start + SLIDE; end <= start + SIZE; end += SLIDE) if (end > t) ends.push([start, end]);
  return ends;
}

function windowModel(rows: readonly Row[], kind: 'TUMBLE' | 'HOP' | 'CUMULATE'): string[] {
  const groups = new Map<string, { n: number; sum: number }>();
  for (const row of rows) {
    for (const [start, end] of windowsOf(kind, floorTo(row.micros, 1000n) / 1000n)) {
      const key = `${text(start)} ${text(end)} ${text(end - 1n, '000')}`;
      const g = groups.get(key) ?? { n: 0, sum: 0 };
      groups.set(key, { n: g.n + 1, sum: g.sum + row.id });
    }
  }
  return [...groups].map(([key, g]) => `${key} ${g.n} ${g.sum}`).sort();
}

/** `ts` as TIMESTAMP(6) text. */
const microsText = (micros: bigint): string => text(floorTo(micros, 1000n) / 1000n, String(micros % 1000n).padStart(3, '0'));

interface Model {
  readonly windows: Record<string, string[]>;
  /** Over the updating per-(k, ts) sums: RANGE UNBOUNDED, RANGE 1 ms, ROWS 1 PRECEDING (one query each: chained updating OVERs multiply their changes). */
  readonly over: Record<string, string[]>;
  readonly peers: string[];
}

function model(): Model {
  const rows: Row[] = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, k: partitionOf(i + 1), micros: microsOf(i + 1) }));
  const windows = { TUMBLE: windowModel(rows, 'TUMBLE'), HOP: windowModel(rows, 'HOP'), CUMULATE: windowModel(rows, 'CUMULATE') };
  // per_time: one row per (k, ts) with the sum of its ids; OVER by ts within k.
  const perTime = new Map<string, { k: number; micros: bigint; x: number }>();
  for (const r of rows) {
    const key = `${r.k} ${r.micros}`;
    const g = perTime.get(key) ?? { k: r.k, micros: r.micros, x: 0 };
    perTime.set(key, { ...g, x: g.x + r.id });
  }
  const timed = [...perTime.values()];
  const over: Record<string, string[]> = { unbounded: [], range: [], rows: [] };
  for (const r of timed) {
    const mine = timed.filter((o) => o.k === r.k).sort((a, b) => (a.micros < b.micros ? -1 : 1));
    const at = mine.findIndex((o) => o.micros === r.micros);
    const line = (sum: number): string => `${r.k} ${microsText(r.micros)} ${r.x} ${sum}`;
    over.unbounded!.push(line(mine.slice(0, at + 1).reduce((s, o) => s + o.x, 0)));
    over.range!.push(line(mine.filter((o) => o.micros <= r.micros && o.micros >= r.micros - 1000n).reduce((s, o) => s + o.x, 0)));
    over.rows!.push(line(mine[at]!.x + (at > 0 ? mine[at - 1]!.x : 0)));
  }
  for (const list of Object.values(over)) list.sort();
  // Insert-only input: RANGE peers are the rows of the same microsecond.
  const peers = rows.map((r) => `${r.id} ${rows.filter((o) => o.k === r.k && o.micros <= r.micros).reduce((s, o) => s + o.id, 0)}`);
  return { windows, over, peers: peers.sort() };
}

const lines = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => Object.values(r).map(String).join(' ')).sort();

async function run(mode: 'batch' | 'streaming'): Promise<Model> {
  const engine = createEngine({ onWarning: () => {} });
  await engine.execute(`SET 'execution.runtime-mode' = '${mode}'; ${DDL}`);
  const windows: Record<string, string[]> = {};
  const tvfs: Record<string, string> = { TUMBLE: "INTERVAL '0.01' SECOND", HOP: "INTERVAL '0.005' SECOND, INTERVAL '0.01' SECOND", CUMULATE: "INTERVAL '0.005' SECOND, INTERVAL '0.01' SECOND" };
  for (const [kind, args] of Object.entries(tvfs)) {
    windows[kind] = lines(
      await engine.query(
        `SELECT CAST(window_start AS STRING), CAST(window_end AS STRING), CAST(window_time AS STRING), COUNT(*), SUM(id)
         FROM TABLE(${kind}(TABLE stamped, DESCRIPTOR(ts), ${args})) GROUP BY window_start, window_end, window_time`,
      ),
    );
  }
  const frames: Record<string, string> = {
    unbounded: '',
    range: "RANGE BETWEEN INTERVAL '0.001' SECOND PRECEDING AND CURRENT ROW",
    rows: 'ROWS BETWEEN 1 PRECEDING AND CURRENT ROW',
  };
  const over: Record<string, string[]> = {};
  for (const [name, frame] of Object.entries(frames)) {
    over[name] = lines(await engine.query(`SELECT k, CAST(ts AS STRING), x, SUM(x) OVER (PARTITION BY k ORDER BY ts ${frame}) FROM per_time`));
  }
  const peers = lines(await engine.query('SELECT id, SUM(id) OVER (PARTITION BY k ORDER BY ts) FROM stamped'));
  await engine.close();
  return { windows, over, peers };
}

describe('TIMESTAMP(6) time columns', () => {
  const expected = model();

  it('the model has rows within one millisecond that only the microseconds order', () => {
    const sameMilli = new Set(Array.from({ length: 97 }, (_, i) => (BASE_MICROS + BigInt(i * 250)) / 1000n));
    expect(sameMilli.size).toBeLessThan(97);
    expect(expected.windows.HOP!.length).toBeGreaterThan(expected.windows.TUMBLE!.length);
  });

  for (const mode of ['batch', 'streaming'] as const) {
    it(`windows and OVER aggregates agree with the model in ${mode} mode`, async () => {
      expect(await run(mode)).toEqual(expected);
    });
  }

  it('types window_time as the time column, TIMESTAMP(6), and the bounds as TIMESTAMP(3)', async () => {
    const engine = createEngine();
    await engine.execute(`SET 'execution.runtime-mode' = 'batch'; ${DDL}`);
    for (const tvf of ["TUMBLE(TABLE stamped, DESCRIPTOR(ts), INTERVAL '1' SECOND)", "HOP(TABLE stamped, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)"]) {
      const [row] = await engine.query(`SELECT TYPEOF(window_start) AS s, TYPEOF(window_end) AS e, TYPEOF(window_time) AS t FROM TABLE(${tvf}) LIMIT 1`);
      expect([row!.s, row!.e, String(row!.t).replace(' *ROWTIME*', '')]).toEqual(['TIMESTAMP(3) NOT NULL', 'TIMESTAMP(3) NOT NULL', 'TIMESTAMP(6) NOT NULL']);
    }
    await engine.close();
  });

  it('refuses a WATERMARK on a TIMESTAMP(6) column, as Flink', async () => {
    const engine = createEngine();
    await expect(engine.execute("CREATE TABLE w (ts TIMESTAMP(6), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')")).rejects.toThrow(
      "watermark column 'ts' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (a precision of at most 3), not TIMESTAMP(6)",
    );
    await engine.close();
  });
});
