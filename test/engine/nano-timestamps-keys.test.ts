/**
 * TIMESTAMP(9) values as keys: GROUP BY, a join on equal TIMESTAMP(9) columns (and on a
 * TIMESTAMP(9) against a TIMESTAMP(3), compared at nanosecond precision), DISTINCT and a Top-N by
 * time, at parallelism 1 and 2, in batch and streaming mode: the modes agree with each other and
 * with a model that computes on bigint nanoseconds. Keys one nanosecond apart are different keys;
 * the only thing that tells them apart is the last digit, which a double would lose.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { LocalZonedTimestamp, PreciseTimestamp } from '../../src/engine/api-values.js';

const ROWS = 3000;
const BASE = 1_700_000_000_000_000_000n;

/** Row `id` of the source: `at` one of 50 times a nanosecond apart in pairs, `seen` an instant per row. */
const atOf = (id: number): bigint => BASE + BigInt(Math.floor((id * 7) % 50 / 2)) * 1_000_000_007n + BigInt((id * 7) % 2);
const seenOf = (id: number): bigint => BASE + BigInt(id) * 999_999_937n;

const DDL = `CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '${ROWS}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}');
  CREATE VIEW stamped AS SELECT id,
    CAST(TO_TIMESTAMP_LTZ(${BASE} + CAST(FLOOR(MOD(id * 7, 50) / 2) AS BIGINT) * 1000000007 + MOD(id * 7, 2), 9) AS TIMESTAMP(9)) AS at,
    TO_TIMESTAMP_LTZ(${BASE} + id * 999999937, 9) AS seen FROM src;
  CREATE VIEW marks AS SELECT id AS mid, at AS mark, CAST(at AS TIMESTAMP(3)) AS coarse FROM stamped WHERE MOD(id, 97) = 0;`;

const nanos = (v: unknown): string => (v instanceof PreciseTimestamp || v instanceof LocalZonedTimestamp ? String(v.epochNanos) : String(v));
const lines = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => Object.values(r).map(nanos).join(' ')).sort();

interface Model {
  readonly groups: string[];
  readonly joined: string[];
  readonly coarseJoined: string[];
  readonly distinct: string[];
  readonly latest: string[];
}

function model(): Model {
  const rows = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, at: atOf(i + 1), seen: seenOf(i + 1) }));
  const groups = new Map<bigint, { n: number; lo: bigint; hi: bigint }>();
  for (const r of rows) {
    const g = groups.get(r.at);
    if (g === undefined) groups.set(r.at, { n: 1, lo: r.seen, hi: r.seen });
    else groups.set(r.at, { n: g.n + 1, lo: r.seen < g.lo ? r.seen : g.lo, hi: r.seen > g.hi ? r.seen : g.hi });
  }
  const marks = rows.filter((r) => r.id % 97 === 0);
  const millis = (n: bigint): bigint => n - (((n % 1_000_000n) + 1_000_000n) % 1_000_000n);
  return {
    groups: [...groups].map(([at, g]) => `${at} ${g.n} ${g.lo} ${g.hi}`).sort(),
    joined: rows.flatMap((r) => marks.filter((m) => m.at === r.at).map((m) => `${r.id} ${m.id} ${r.at}`)).sort(),
    // TIMESTAMP(9) = TIMESTAMP(3): the TIMESTAMP(3) is widened, so only times on a whole millisecond match.
    coarseJoined: rows.flatMap((r) => marks.filter((m) => millis(m.at) === r.at).map((m) => `${r.id} ${m.id}`)).sort(),
    distinct: [...groups.keys()].map(String).sort(),
    latest: [...groups.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, 3).map(String).sort(),
  };
}

async function run(mode: 'batch' | 'streaming', parallelism: number): Promise<Model> {
  const engine = createEngine({ onWarning: () => {} });
  await engine.execute(`SET 'execution.runtime-mode' = '${mode}'; SET 'parallelism.default' = '${parallelism}'; ${DDL}`);
  const result = {
    groups: lines(await engine.query('SELECT at, COUNT(*) AS n, MIN(seen) AS lo, MAX(seen) AS hi FROM stamped GROUP BY at')),
    joined: lines(await engine.query('SELECT s.id, m.mid, s.at FROM stamped s JOIN marks m ON s.at = m.mark')),
    coarseJoined: lines(await engine.query('SELECT s.id, m.mid FROM stamped s JOIN marks m ON s.at = m.coarse')),
    distinct: lines(await engine.query('SELECT DISTINCT at FROM stamped')),
    latest: lines(await engine.query('SELECT DISTINCT at FROM stamped ORDER BY at DESC LIMIT 3')),
  };
  await engine.close();
  return result;
}

describe('TIMESTAMP(9) keys', () => {
  const expected = model();

  it('the model has groups a nanosecond apart, and joins that match', () => {
    expect(expected.groups.length).toBe(50);
    expect(expected.joined.length).toBeGreaterThan(0);
    expect(expected.coarseJoined.length).toBeGreaterThan(0);
    expect(expected.coarseJoined.length).toBeLessThan(expected.joined.length);
  });

  for (const parallelism of [1, 2]) {
    it(`batch and streaming mode agree with the model at parallelism ${parallelism}`, async () => {
      const batch = await run('batch', parallelism);
      const streaming = await run('streaming', parallelism);
      expect(batch).toEqual(expected);
      expect(streaming).toEqual(batch);
    });
  }
});
