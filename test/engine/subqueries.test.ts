/**
 * Subqueries end to end, at parallelism 2: materialized views of EXISTS, NOT EXISTS, IN, NOT IN (of a value
 * or a row), ANY/ALL and scalar subqueries (correlated and not; as conditions and as values) over a keyed
 * and a keyless writable table, while seeded random rounds of INSERT, UPDATE and DELETE (NULLs and duplicates included) change
 * both sides; after every round's FLUSH each view must equal PostgreSQL running its query over the
 * same rows (the sqllogictest runner's oracle). A scalar subquery meeting two rows fails the job,
 * naming the subquery.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { runSlt } from '../slt/slt-runner.js';

/** The views, each a query PostgreSQL runs alike. */
const VIEWS: Readonly<Record<string, string>> = {
  exists_corr: 'SELECT id, k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v >= a.v)',
  not_exists_corr: 'SELECT id, k FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)',
  in_uncorr: 'SELECT id, v FROM a WHERE v IN (SELECT v FROM b)',
  not_in_uncorr: 'SELECT id, v FROM a WHERE v NOT IN (SELECT v FROM b)',
  not_in_corr: 'SELECT id, v FROM a WHERE v NOT IN (SELECT b.v FROM b WHERE b.k = a.k)',
  keyless_not_in: 'SELECT k, v FROM b WHERE k NOT IN (SELECT k FROM a WHERE v IS NOT NULL)',
  gt_all: 'SELECT id, v FROM a WHERE v > ALL (SELECT b.v FROM b WHERE b.k = a.k)',
  lt_any: 'SELECT id, v FROM a WHERE v < ANY (SELECT v FROM b WHERE k IS NOT NULL)',
  count_corr: 'SELECT id, (SELECT COUNT(*) FROM b WHERE b.k = a.k) AS n FROM a',
  sum_corr: 'SELECT id, v - (SELECT SUM(b.v) FROM b WHERE b.k = a.k) AS d FROM a',
  max_uncorr: 'SELECT id, v FROM a WHERE v >= (SELECT MAX(v) FROM b)',
  having_in: 'SELECT k, COUNT(*) AS n FROM b GROUP BY k HAVING k IN (SELECT k FROM a)',
  quantified_values:
    'SELECT id, v > ANY (SELECT b.v FROM b WHERE b.k = a.k) AS gt_any, v = ALL (SELECT b.v FROM b WHERE b.k = a.k) AS eq_all, v <> ANY (SELECT b.v FROM b WHERE b.k = a.k) AS ne_any, v IN (SELECT b.v FROM b) AS in_b FROM a',
  exists_value: 'SELECT id, EXISTS (SELECT 1 FROM b WHERE b.k = a.k) OR v IS NULL AS e FROM a',
  row_in: 'SELECT id FROM a WHERE (k, v) IN (SELECT k, v FROM b)',
  row_not_in: 'SELECT id FROM a WHERE (k, v) NOT IN (SELECT k, v FROM b)',
  row_not_in_corr: 'SELECT id FROM a WHERE (v, id) NOT IN (SELECT b.v, b.k FROM b WHERE b.k = a.k)',
  // A correlated UNION is split into one predicate per branch (splitCorrelatedUnion).
  exists_union_corr: 'SELECT id, k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k UNION ALL SELECT 1 FROM b WHERE b.v = a.v AND b.k IS NULL)',
  not_in_union_corr: 'SELECT id, v FROM a WHERE v NOT IN (SELECT b.v FROM b WHERE b.k = a.k UNION SELECT b.k FROM b WHERE b.v = a.id)',
};

/** A seeded generator of small integers (a linear congruential generator: the same seed, the same rounds). */
function generator(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

/** An sqllogictest script: the tables, the views, then rounds of random DML each ended by FLUSH. */
function script(seed: number, rounds: number): string {
  const next = generator(seed);
  const value = (): string => (next(6) === 0 ? 'NULL' : String(next(4)));
  const lines: string[] = [
    "SET 'parallelism.default' = '2'",
    'CREATE TABLE a (id INT PRIMARY KEY NOT ENFORCED, k INT, v INT)',
    'CREATE TABLE b (k INT, v INT)',
    ...Object.entries(VIEWS).map(([name, query]) => `CREATE MATERIALIZED VIEW ${name} AS ${query}`),
  ];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < 4; i++) {
      switch (next(7)) {
        case 0:
        case 1:
          lines.push(`INSERT INTO a VALUES (${next(8)}, ${value()}, ${value()})`);
          break;
        case 2:
        case 3:
          lines.push(`INSERT INTO b VALUES (${value()}, ${value()}), (${value()}, ${value()})`);
          break;
        case 4:
          lines.push(next(2) === 0 ? `DELETE FROM a WHERE id = ${next(8)}` : `UPDATE a SET v = ${value()} WHERE k = ${next(4)}`);
          break;
        case 5:
          lines.push(`UPDATE b SET v = ${value()} WHERE k = ${next(4)}`);
          break;
        default:
          lines.push(next(2) === 0 ? `DELETE FROM b WHERE v = ${next(4)}` : `DELETE FROM b WHERE k IS NULL`);
      }
    }
    lines.push('FLUSH');
  }
  return lines.map((sql) => `statement ok\n${sql}\n`).join('\n');
}

describe('subqueries as materialized views (random rounds, parallelism 2)', () => {
  for (const seed of [1, 7, 42]) {
    it(`seed ${seed}: every view equals PostgreSQL after every round`, async () => {
      const report = await runSlt(script(seed, 8), `subqueries-seed-${seed}.slt`);
      expect(report.views).toHaveLength(Object.keys(VIEWS).length);
      expect(report.viewChecks).toBeGreaterThanOrEqual(8 * Object.keys(VIEWS).length);
    }, 180_000);
  }
});

describe('scalar subqueries meeting more than one row', () => {
  let cwd = '';
  beforeEach(() => {
    // Writable tables live under the working directory: each test gets a fresh one.
    cwd = process.cwd();
    process.chdir(mkdtempSync(join(tmpdir(), 'weir-subqueries-')));
  });
  afterEach(() => process.chdir(cwd));

  it('fail a query, naming the subquery; one row per outer row passes', async () => {
    const engine = createEngine();
    try {
      await engine.execute('CREATE TABLE t (k INT, v INT)');
      await engine.execute('INSERT INTO t VALUES (1, 10), (1, 11), (2, 20)');
      await engine.execute("SET 'execution.runtime-mode' = 'batch'");
      await expect(engine.query('SELECT k, (SELECT v FROM t AS u WHERE u.k = t.k) AS v FROM t')).rejects.toThrow(/More than one row returned by \(subquery at line 1, column 11\)/);
      const rows = await engine.query('SELECT k, (SELECT v FROM t AS u WHERE u.k = t.k AND u.v > 10) AS v FROM t');
      expect(rows.map((r) => [r.k, r.v]).sort()).toEqual([
        [1, 11],
        [1, 11],
        [2, 20],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('fail a continuous job when a second row arrives', async () => {
    const engine = createEngine();
    try {
      await engine.execute('CREATE TABLE t (k INT PRIMARY KEY NOT ENFORCED, v INT)');
      await engine.execute('CREATE TABLE u (k INT, w INT)');
      await engine.execute("CREATE TABLE s (k INT, w INT) WITH ('connector' = 'blackhole')");
      await engine.execute('INSERT INTO t VALUES (1, 10), (2, 20)');
      await engine.execute('INSERT INTO u VALUES (1, 5), (2, 7)');
      await engine.execute('INSERT INTO s SELECT k, (SELECT w FROM u WHERE u.k = t.k) AS w FROM t');
      await engine.execute('FLUSH');
      const job = (): ReturnType<typeof engine.session.jobs>[number] => engine.session.jobs().find((j) => j.name.endsWith('.s'))!;
      expect(job().status).not.toBe('FAILED');
      await engine.execute('INSERT INTO u VALUES (1, 6)');
      await engine.execute('FLUSH');
      for (let i = 0; i < 100 && job().status !== 'FAILED'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(job().status).toBe('FAILED');
      expect(String(job().error)).toMatch(/More than one row returned by \(subquery at line 1, column 25\)/);
    } finally {
      await engine.close();
    }
  });
});
