/**
 * UNION, INTERSECT [ALL] and EXCEPT [ALL] over writable tables changed by INSERT, UPDATE and
 * DELETE between FLUSHes, with duplicates and NULLs, at parallelism 2: after every round the
 * streaming results equal PostgreSQL running the same queries as batch SQL over the same rows.
 * Distinct set operations are materialized views (keyed by all their columns) compared with
 * Postgres inside Postgres; every set operation, nested ones (with UNION ALL, in subqueries, CTEs
 * and views, under ORDER BY ... LIMIT) included, also runs into a transactional collect sink whose
 * committed changelog, applied, must equal Postgres's answer. A job stopped with a savepoint and
 * resumed at another parallelism leaves the table of an uninterrupted run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import type { JobHandle } from '../../src/engine/job-handle.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import pg from 'pg';
import { freshDatabase } from '../support/pg-query.js';

/** Queries run by weir and by Postgres alike, named by the sink they write to in weir. */
const QUERIES: Readonly<Record<string, string>> = {
  union_distinct: 'SELECT k, v FROM l UNION SELECT k, v FROM r',
  intersect_distinct: 'SELECT k, v FROM l INTERSECT SELECT k, v FROM r',
  intersect_all: 'SELECT k, v FROM l INTERSECT ALL SELECT k, v FROM r',
  except_distinct: 'SELECT k, v FROM l EXCEPT SELECT k, v FROM r',
  except_all: 'SELECT k, v FROM l EXCEPT ALL SELECT k, v FROM r',
  except_all_reversed: 'SELECT k, v FROM r EXCEPT ALL SELECT k, v FROM l',
  nested: '(SELECT k, v FROM l EXCEPT SELECT k, v FROM r) UNION ALL (SELECT k, v FROM r INTERSECT ALL SELECT k, v FROM l)',
  precedence: 'SELECT k, v FROM l UNION ALL SELECT k, v FROM r EXCEPT ALL SELECT k, v FROM l INTERSECT ALL SELECT k, v FROM r',
  mixed_types: 'SELECT k, v FROM l INTERSECT ALL SELECT CAST(k AS BIGINT), v FROM r',
  grouped: 'SELECT v, COUNT(*) AS n FROM (SELECT k, v FROM l EXCEPT ALL SELECT k, v FROM r) AS d GROUP BY v',
  set_of_aggregates: 'SELECT k, COUNT(*) AS n FROM l GROUP BY k INTERSECT SELECT k, COUNT(*) AS n FROM r GROUP BY k',
  cte: 'WITH common_keys AS (SELECT k FROM l INTERSECT SELECT k FROM r) SELECT k FROM common_keys WHERE k > 1 OR k IS NULL',
  view: 'SELECT k, v FROM only_left UNION SELECT k, v FROM r WHERE k = 1',
  top: 'SELECT k, v FROM l WHERE k IS NOT NULL AND v IS NOT NULL INTERSECT ALL SELECT k, v FROM r ORDER BY k DESC, v DESC LIMIT 3',
};

/** The view `view` reads, created in weir and in Postgres. */
const ONLY_LEFT = 'CREATE VIEW only_left AS SELECT k, v FROM l EXCEPT SELECT k, v FROM r';

/** Output columns of each query, as weir types them (for the collect tables). */
const COLUMNS: Readonly<Record<string, string>> = {
  grouped: 'v STRING, n BIGINT',
  set_of_aggregates: 'k INT, n BIGINT',
  cte: 'k INT',
  mixed_types: 'k BIGINT, v STRING',
};

/** The distinct set operations, also kept as materialized views. */
const VIEWS = ['union_distinct', 'intersect_distinct', 'except_distinct'] as const;

const NULL_INT = 'CAST(NULL AS INT)';
const NULL_STRING = 'CAST(NULL AS VARCHAR)';

/** Rounds of DML, each valid SQL for weir and for Postgres; the later ones are drawn from a seeded generator. */
function rounds(): string[][] {
  const fixed = [
    [
      `INSERT INTO l VALUES (1, 'a'), (1, 'a'), (1, 'a'), (2, 'b'), (${NULL_INT}, 'n'), (${NULL_INT}, 'n'), (3, ${NULL_STRING}), (4, 'd'), (${NULL_INT}, ${NULL_STRING})`,
      `INSERT INTO r VALUES (1, 'a'), (2, 'b'), (2, 'b'), (${NULL_INT}, 'n'), (3, ${NULL_STRING}), (5, 'e'), (${NULL_INT}, ${NULL_STRING}), (${NULL_INT}, ${NULL_STRING})`,
    ],
    ['DELETE FROM r WHERE k = 2', "UPDATE l SET v = 'z' WHERE k = 4", "INSERT INTO r VALUES (1, 'a'), (1, 'a'), (4, 'z')"],
    ['DELETE FROM l WHERE k IS NULL', "UPDATE r SET k = 6 WHERE v = 'e'", `INSERT INTO l VALUES (6, 'e'), (6, 'e'), (${NULL_INT}, 'n')`],
    ["DELETE FROM l WHERE v = 'a'", 'DELETE FROM r WHERE v IS NULL', "INSERT INTO r VALUES (2, 'b'), (6, 'e')", "UPDATE l SET k = 2, v = 'b' WHERE k = 6"],
  ];
  let seed = 20_250_101;
  const random = (n: number): number => {
    seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return ((seed >>> 0) % 1_000_003) % n;
  };
  const key = (): string => (random(5) === 0 ? NULL_INT : String(1 + random(4)));
  const value = (): string => (random(5) === 0 ? NULL_STRING : `'${'abc'[random(3)]}'`);
  const matches = (column: string, literal: string): string => (literal.startsWith('CAST') ? `${column} IS NULL` : `${column} = ${literal}`);
  const generated = Array.from({ length: 6 }, () =>
    Array.from({ length: 3 + random(4) }, () => {
      const table = random(2) === 0 ? 'l' : 'r';
      switch (random(4)) {
        case 0:
        case 1:
          return `INSERT INTO ${table} VALUES ${Array.from({ length: 1 + random(4) }, () => `(${key()}, ${value()})`).join(', ')}`;
        case 2:
          return `DELETE FROM ${table} WHERE ${matches('k', key())} AND ${matches('v', value())}`;
        default:
          return `UPDATE ${table} SET v = ${value()} WHERE ${matches('k', key())}`;
      }
    }),
  );
  return [...fixed, ...generated];
}

/** A connection to `url` that reads BIGINT values as numbers (as weir holds them). */
async function connect(url: string): Promise<pg.Client> {
  const parsers = ((oid: number, format: 'text' | 'binary') => (oid === 20 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser;
  const client = new pg.Client({ connectionString: url, types: { getTypeParser: parsers } });
  await client.connect();
  return client;
}

/** The rows of `sql` as arrays. */
async function rowsOf(client: pg.Client, sql: string): Promise<unknown[][]> {
  return (await client.query({ text: sql, rowMode: 'array' })).rows as unknown[][];
}

/** Rows in a canonical order, as JSON text, for comparing weir's rows with Postgres's. */
function canonical(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map((row) => JSON.stringify(row)).sort();
}

describe('set operations against PostgreSQL', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-setops-'))));
  afterAll(() => process.chdir(home));

  it('follow INSERT, UPDATE and DELETE on both inputs, with duplicates and NULLs, as Postgres computes them', { timeout: 300_000 }, async () => {
    resetCollected();
    const url = await freshDatabase('weir_setops');
    const postgres = await connect(url);
    await postgres.query(`CREATE TABLE l (k int, v varchar); CREATE TABLE r (k int, v varchar); ${ONLY_LEFT}`);
    const engine = createEngine({ connectors: [collectConnector], onWarning: () => {} });
    const sinks = Object.keys(QUERIES)
      .map((name) => `CREATE TABLE out_${name} (${COLUMNS[name] ?? 'k INT, v STRING'}) WITH ('connector' = 'collect', 'transactional' = 'true');`)
      .join('\n');
    const inserts = Object.entries(QUERIES).map(([name, query]) => `INSERT INTO out_${name} ${query};`).join('\n');
    const views = VIEWS.map((name) => `CREATE MATERIALIZED VIEW mv_${name} WITH ('url' = '${url}') AS SELECT * FROM (${QUERIES[name]!}) WHERE k IS NOT NULL AND v IS NOT NULL;`).join('\n');
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}'; SET 'parallelism.default' = '2'; SET 'execution.checkpointing.interval' = '1 h';
      CREATE TABLE l (k INT, v STRING); CREATE TABLE r (k INT, v STRING); ${ONLY_LEFT};
      ${sinks}
      EXECUTE STATEMENT SET BEGIN ${inserts} END;
      ${views}`);
    const [plan] = await engine.execute(`EXPLAIN ${QUERIES.except_all!}`);
    expect(plan).toMatchObject({ kind: 'text', text: expect.stringContaining('Minus(all=[true], minus=[k, v], changelogMode=[I,D])') });
    let checked = 0;
    for (const [round, statements] of rounds().entries()) {
      await engine.execute(`${statements.join(';\n')}; FLUSH;`);
      for (const statement of statements) await postgres.query(statement);
      for (const [name, query] of Object.entries(QUERIES)) {
        const expected = await rowsOf(postgres, query);
        expect(canonical(materialize(collected(`out_${name}`))), `${name} after round ${round}: ${statements.join('; ')}`).toEqual(canonical(expected));
        checked++;
      }
      for (const name of VIEWS) {
        const batch = `SELECT * FROM (${QUERIES[name]!}) AS q WHERE k IS NOT NULL AND v IS NOT NULL`;
        const view = `SELECT k, v FROM mv_${name}`;
        expect(await rowsOf(postgres, `(${batch}) EXCEPT ALL (${view})`), `${name} after round ${round}`).toEqual([]);
        expect(await rowsOf(postgres, `(${view}) EXCEPT ALL (${batch})`), `${name} after round ${round}`).toEqual([]);
      }
    }
    expect(checked).toBe(rounds().length * Object.keys(QUERIES).length);
    expect(collected('out_intersect_all').length).toBeGreaterThan(0);
    expect(collected('out_except_all').some(([kind]) => kind === '-D')).toBe(true);
    await engine.close({ graceful: true });
    await postgres.end();
  });
});

describe('set operations across a savepoint', () => {
  const sources = (dir: string, parallelism: number): string => `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '50 ms';
    SET 'pipeline.name' = 'setops';
    SET 'parallelism.default' = '${parallelism}';
    CREATE TABLE l (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '6000', 'fields.id.kind' = 'sequence',
      'fields.id.start' = '1', 'fields.id.end' = '6000', 'fields.k.min' = '0', 'fields.k.max' = '40', 'fields.v.min' = '0', 'fields.v.max' = '3', 'fields.v.null-rate' = '0.1');
    CREATE TABLE r (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '6000', 'fields.id.kind' = 'sequence',
      'fields.id.start' = '1', 'fields.id.end' = '6000', 'fields.k.min' = '20', 'fields.k.max' = '60', 'fields.v.min' = '0', 'fields.v.max' = '3', 'fields.v.null-rate' = '0.1');`;
  const query = (sink: string): string => `CREATE TABLE ${sink}_all (k INT, v BIGINT) WITH ('connector' = 'collect', 'transactional' = 'true');
    CREATE TABLE ${sink}_distinct (k INT, v BIGINT) WITH ('connector' = 'collect', 'transactional' = 'true');
    EXECUTE STATEMENT SET BEGIN
      INSERT INTO ${sink}_all SELECT k, v FROM l INTERSECT ALL SELECT k, v FROM r;
      INSERT INTO ${sink}_distinct SELECT k, MOD(n, 3) FROM (SELECT k, COUNT(*) AS n FROM l GROUP BY k) EXCEPT SELECT k, v FROM r;
    END`;
  const run = async (sql: string): Promise<JobHandle> => {
    const results = await createEngine({ connectors: [collectConnector], onWarning: () => {} }).execute(sql);
    const last = results[results.length - 1]!;
    if (last.kind !== 'job') throw new Error(`expected a job, got ${last.kind}`);
    return last.job;
  };

  it('stopped with a savepoint and resumed at another parallelism, leaves the tables of an uninterrupted run', { timeout: 120_000 }, async () => {
    resetCollected();
    const reference = await run(`${sources(mkdtempSync(join(tmpdir(), 'weir-setops-ref-')), 1)} ${query('reference')}`);
    expect(await reference.result()).toBe('FINISHED');
    const expected = { all: materialize(collected('reference_all')), distinct: materialize(collected('reference_distinct')) };
    expect(expected.all.length).toBeGreaterThan(100);
    expect(expected.all.some((row) => row[1] === null)).toBe(true);
    expect(collected('reference_distinct').some(([kind]) => kind === '-D')).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'weir-setops-ckpt-'));
    const first = await run(`${sources(dir, 1)} ${query('resumed')}`);
    while (first.lastCheckpoint === undefined) await new Promise((r) => setTimeout(r, 10));
    await first.stopWithSavepoint();
    const partial = collected('resumed_all').length;
    expect(partial).toBeGreaterThan(0);
    const second = await run(`${sources(dir, 3)} ${query('resumed')}`);
    expect(second.resumedFrom).toBeDefined();
    expect(await second.result()).toBe('FINISHED');
    expect(collected('resumed_all').length).toBeGreaterThan(partial);
    expect(materialize(collected('resumed_all'))).toEqual(expected.all);
    expect(materialize(collected('resumed_distinct'))).toEqual(expected.distinct);
  });
});
