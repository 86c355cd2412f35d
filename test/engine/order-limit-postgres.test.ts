/**
 * ORDER BY with NULLS FIRST / LAST, LIMIT / OFFSET / FETCH, rank ranges and OVER windows, against
 * PostgreSQL running the same query: a writable table (no connector) and a Postgres table receive
 * the same INSERT, UPDATE and DELETE statements, and weir's answer — in batch mode, which replays
 * the table's changelog with its retractions, and live, a streaming query followed through every
 * statement — equals Postgres's, row for row and in order. A query over a materialized view, which
 * runs in Postgres itself, orders NULLs as Flink does too.
 *
 * Postgres orders NULLs the other way round from Flink by default (last ascending, first
 * descending), so its side of every comparison spells the null order out; weir's side leaves it
 * to Flink's default where the point is the default.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Change, type Engine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

const TABLE = 'CREATE TABLE items (id INT, k STRING, v INT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED)';
const PG_TABLE = 'CREATE TABLE items (id INT PRIMARY KEY, k TEXT, v INT, ts TIMESTAMP(3))';

/** A deterministic stream of small numbers (a linear congruential generator). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state >>> 8;
  };
}

/** `INSERT INTO items VALUES ...` of ids `from` .. `to`, with NULLs among k, v and ts. */
function insertRows(from: number, to: number, seed: number): string {
  const next = numbers(seed);
  const rows: string[] = [];
  for (let id = from; id <= to; id++) {
    const k = next() % 8 === 0 ? 'CAST(NULL AS VARCHAR)' : `'${'abc'[next() % 3]}'`;
    const v = next() % 4 === 0 ? 'CAST(NULL AS INT)' : String((next() % 9) - 3);
    const ts = next() % 5 === 0 ? 'CAST(NULL AS TIMESTAMP(3))' : `TIMESTAMP '2024-01-01 ${String(next() % 24).padStart(2, '0')}:${String(next() % 4 * 15).padStart(2, '0')}:00'`;
    rows.push(`(${id}, ${k}, ${v}, ${ts})`);
  }
  return `INSERT INTO items VALUES ${rows.join(', ')}`;
}

/** The statements both sides run, in order: inserts, updates (to and from NULL), deletes. */
const STEPS: readonly string[] = [
  insertRows(1, 40, 7),
  'UPDATE items SET v = NULL WHERE MOD(id, 7) = 0',
  "UPDATE items SET v = v + 2 WHERE k = 'b'",
  'DELETE FROM items WHERE MOD(id, 5) = 0',
  insertRows(41, 60, 11),
  'UPDATE items SET v = 9 WHERE v IS NULL AND MOD(id, 3) = 0',
  'DELETE FROM items WHERE v < 0',
];

/** Each value as text (NULL stays null), so that weir's and Postgres's number types compare. */
function normalized(rows: readonly Record<string, unknown>[]): Record<string, string | null>[] {
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([column, value]) => [column, value === null ? null : String(value)])));
}

/** Pairs of (weir query, the same query for Postgres with its null orders spelled out) whose ORDER BY makes the answer's order total. */
const ORDERED: readonly { readonly weir: string; readonly postgres: string }[] = [
  { weir: 'SELECT id, v FROM items ORDER BY v NULLS FIRST, id LIMIT 6 OFFSET 2', postgres: 'SELECT id, v FROM items ORDER BY v NULLS FIRST, id LIMIT 6 OFFSET 2' },
  { weir: 'SELECT id, v FROM items ORDER BY v, id LIMIT 5', postgres: 'SELECT id, v FROM items ORDER BY v NULLS FIRST, id LIMIT 5' },
  { weir: 'SELECT id, v FROM items ORDER BY v DESC, id LIMIT 5 OFFSET 1', postgres: 'SELECT id, v FROM items ORDER BY v DESC NULLS LAST, id LIMIT 5 OFFSET 1' },
  { weir: 'SELECT id, v FROM items ORDER BY v DESC NULLS FIRST, id DESC LIMIT 4', postgres: 'SELECT id, v FROM items ORDER BY v DESC NULLS FIRST, id DESC LIMIT 4' },
  { weir: 'SELECT id, v FROM items ORDER BY v NULLS LAST, id OFFSET 3 ROWS FETCH FIRST 4 ROWS ONLY', postgres: 'SELECT id, v FROM items ORDER BY v NULLS LAST, id OFFSET 3 ROWS FETCH FIRST 4 ROWS ONLY' },
  {
    weir: 'SELECT k, total FROM (SELECT k, SUM(v) AS total FROM items GROUP BY k) AS g ORDER BY total DESC, k LIMIT 2 OFFSET 1',
    postgres: 'SELECT k, total FROM (SELECT k, SUM(v) AS total FROM items GROUP BY k) AS g ORDER BY total DESC NULLS LAST, k NULLS FIRST LIMIT 2 OFFSET 1',
  },
];

/** Pairs whose answer is a set (ties are numbered alike, or the numbers are part of the row). */
const UNORDERED: readonly { readonly weir: string; readonly postgres: string }[] = [
  {
    weir: 'SELECT k, id, v, rn FROM (SELECT k, id, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC NULLS FIRST, id) AS rn FROM items) AS s WHERE rn BETWEEN 2 AND 3',
    postgres: 'SELECT k, id, v, rn FROM (SELECT k, id, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC NULLS FIRST, id) AS rn FROM items) AS s WHERE rn BETWEEN 2 AND 3',
  },
  {
    weir: 'SELECT k, id FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY MOD(v, 3), id DESC) AS rn FROM items) AS s WHERE rn > 1 AND rn <= 2',
    postgres: 'SELECT k, id FROM (SELECT k, id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY MOD(v, 3) NULLS FIRST, id DESC) AS rn FROM items) AS s WHERE rn > 1 AND rn <= 2',
  },
  {
    weir: 'SELECT k, id, r FROM (SELECT k, id, RANK() OVER (PARTITION BY k ORDER BY v NULLS LAST) AS r FROM items) AS s WHERE r <= 3',
    postgres: 'SELECT k, id, r FROM (SELECT k, id, RANK() OVER (PARTITION BY k ORDER BY v NULLS LAST) AS r FROM items) AS s WHERE r <= 3',
  },
  {
    weir: 'SELECT k, id, r FROM (SELECT k, id, DENSE_RANK() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM items) AS s WHERE r = 2',
    postgres: 'SELECT k, id, r FROM (SELECT k, id, DENSE_RANK() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST) AS r FROM items) AS s WHERE r = 2',
  },
  {
    weir: `SELECT id, COUNT(*) OVER (PARTITION BY k ORDER BY ts NULLS LAST) AS c,
        SUM(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '2' HOUR PRECEDING AND CURRENT ROW) AS s FROM items`,
    postgres: `SELECT id, COUNT(*) OVER (PARTITION BY k ORDER BY ts NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c,
        SUM(v) OVER (ORDER BY ts NULLS FIRST RANGE BETWEEN INTERVAL '2' HOUR PRECEDING AND CURRENT ROW) AS s FROM items`,
  },
];

const set = (rows: readonly Record<string, unknown>[]): string[] => normalized(rows).map((r) => JSON.stringify(r)).sort();

describe('ORDER BY, LIMIT/OFFSET and ranks against PostgreSQL', () => {
  // Writable tables keep their log in the working directory: each test gets its own.
  const home = process.cwd();
  beforeEach(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-order-'))));
  afterAll(() => process.chdir(home));

  it('a batch query over the table after inserts, updates and deletes answers as Postgres does', async () => {
    const url = await freshDatabase('weir_order');
    const engine = createEngine();
    await engine.execute(TABLE);
    await pgQuery(url, PG_TABLE);
    for (const step of STEPS) {
      await engine.execute(step);
      await pgQuery(url, step);
    }
    await engine.execute("SET 'execution.runtime-mode' = 'batch'");
    expect(Number((await pgQuery<{ n: string }>(url, 'SELECT count(*) AS n FROM items WHERE v IS NULL'))[0]!.n)).toBeGreaterThan(2);
    for (const { weir, postgres } of ORDERED) {
      const expected = normalized(await pgQuery(url, postgres));
      expect(expected.length, postgres).toBeGreaterThan(0);
      expect(normalized(await engine.query(weir)), weir).toEqual(expected);
    }
    for (const { weir, postgres } of UNORDERED) {
      const expected = set(await pgQuery(url, postgres));
      expect(expected.length, postgres).toBeGreaterThan(0);
      expect(set(await engine.query(weir)), weir).toEqual(expected);
    }
  });

  it("a query reading a materialized view runs in Postgres with Flink's null order", async () => {
    const url = await freshDatabase('weir_order_view');
    const engine = createEngine();
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}'; ${TABLE}; ${STEPS.join(';\n')};
      CREATE MATERIALIZED VIEW per_k WITH ('url' = '${url}') AS SELECT k, SUM(v) AS total, MIN(v) AS low FROM items WHERE k IS NOT NULL GROUP BY k;
      INSERT INTO items VALUES (100, 'nothing', CAST(NULL AS INT), CAST(NULL AS TIMESTAMP(3)));
      FLUSH;`);
    // LIMIT runs in Postgres too, so the row it keeps shows the null order Postgres was given.
    expect(await engine.query('SELECT k, low FROM per_k ORDER BY low, k LIMIT 1')).toEqual([{ k: 'nothing', low: null }]);
    const [descending] = await engine.execute('SELECT k, low FROM per_k ORDER BY low DESC, k');
    const expected = await pgQuery<{ k: string; low: number | null }>(url, 'SELECT k, low FROM per_k ORDER BY low DESC NULLS LAST, k NULLS FIRST');
    expect(expected[expected.length - 1]).toEqual({ k: 'nothing', low: null });
    expect(descending).toMatchObject({ kind: 'rows', rows: expected.map((r) => [r.k, r.low]) });
    await engine.close({ graceful: true });
  });

  it('a streaming query follows every INSERT, UPDATE and DELETE to the answer Postgres gives for the table at that point', async () => {
    const url = await freshDatabase('weir_order_live');
    const engine = createEngine();
    await engine.execute(TABLE);
    await pgQuery(url, PG_TABLE);
    const followed = [ORDERED[0]!, ORDERED[2]!, ORDERED[5]!, UNORDERED[0]!, UNORDERED[3]!].map((pair) => ({ ...pair, live: follow(engine, pair.weir) }));
    try {
      for (const step of STEPS) {
        await engine.execute(step);
        await pgQuery(url, step);
        for (const { postgres, live } of followed) {
          const expected = set(await pgQuery(url, postgres));
          await live.until((rows) => JSON.stringify(set(rows)) === JSON.stringify(expected), `${postgres} after ${step.slice(0, 60)}`);
        }
      }
    } finally {
      for (const { live } of followed) await live.stop();
    }
  });
});

/** A streaming query whose changes are applied as they come; `until` waits for its current rows to satisfy a test. */
function follow(engine: Engine, sql: string): { until(test: (rows: Record<string, unknown>[]) => boolean, what: string): Promise<void>; stop(): Promise<void> } {
  const table = new Map<string, { row: Record<string, unknown>; count: number }>();
  const controller = new AbortController();
  let failure: unknown;
  const apply = ({ op, row }: Change): void => {
    const key = JSON.stringify(row);
    const entry = table.get(key);
    if (op === '+I' || op === '+U') table.set(key, { row, count: (entry?.count ?? 0) + 1 });
    else if (entry === undefined) throw new Error(`${sql}: ${op} of a row not there: ${key}`);
    else if (--entry.count === 0) table.delete(key);
  };
  const done = (async () => {
    for await (const change of engine.subscribe(sql, { signal: controller.signal })) apply(change);
  })().catch((error: unknown) => {
    if (!(error instanceof Error && error.name === 'AbortError')) failure = error;
  });
  const rows = (): Record<string, unknown>[] => [...table.values()].flatMap(({ row, count }) => Array<Record<string, unknown>>(count).fill(row));
  return {
    async until(test, what) {
      const deadline = Date.now() + 20_000;
      while (!test(rows())) {
        if (failure !== undefined) throw failure;
        if (Date.now() > deadline) throw new Error(`${what}: the streaming result never matched; it is ${JSON.stringify(set(rows()))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      controller.abort();
      await done;
      if (failure !== undefined) throw failure;
    },
  };
}
