/**
 * Every join form through the engine, against PostgreSQL running the same SQL as batch queries:
 * CROSS JOIN, joins on conditions without an equality (`<`, BETWEEN on plain columns; inner and
 * LEFT/RIGHT/FULL outer, as nested loops), comma joins of three tables keyed by their WHERE
 * equalities (INT with BIGINT and DECIMAL keys), an equality common to the branches of an OR,
 * NATURAL JOIN and JOIN ... USING (merged columns first, COALESCEd for FULL), IS NOT DISTINCT FROM
 * keys (NULL matching NULL), and dynamic filters (a column compared with a global aggregate), over
 * keyed and keyless writable tables changed by INSERT, UPDATE and DELETE between FLUSHes.
 *
 * Joins whose result has a unique key are materialized views in Postgres, compared with the batch
 * query there (EXCEPT ALL both ways) after every change; the others run as jobs into a
 * transactional collect sink, whose committed changelog (after each FLUSH) must be valid and equal
 * Postgres's answer. At the end, `engine.query` of each query (batch runtime mode) equals it too,
 * and so does a dynamic filter's query run as the nested loop it replaces (its rule switched off).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import pg from 'pg';
import { freshDatabase } from '../support/pg-query.js';

/** The tables, in weir's DDL and in Postgres's. */
const TABLES: readonly { weir: string; pg: string }[] = [
  { weir: 'CREATE TABLE a (id INT, k INT, x INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)', pg: 'CREATE TABLE a (id INT PRIMARY KEY, k INT, x INT, name TEXT)' },
  { weir: 'CREATE TABLE b (id INT, k BIGINT, lo INT, hi INT, PRIMARY KEY (id) NOT ENFORCED)', pg: 'CREATE TABLE b (id INT PRIMARY KEY, k BIGINT, lo INT, hi INT)' },
  { weir: 'CREATE TABLE c (id INT, k DECIMAL(10, 2), tag STRING, PRIMARY KEY (id) NOT ENFORCED)', pg: 'CREATE TABLE c (id INT PRIMARY KEY, k DECIMAL(10, 2), tag TEXT)' },
  { weir: 'CREATE TABLE m (k INT, v INT)', pg: 'CREATE TABLE m (k INT, v INT)' },
  { weir: 'CREATE TABLE u (v INT)', pg: 'CREATE TABLE u (v INT)' },
];

/** The changes, applied alike to weir's writable tables and to Postgres's. */
const CHANGES: readonly string[] = [
  "INSERT INTO a VALUES (1, 1, 5, 'ann'), (2, 2, 10, 'bob'), (3, NULL, 15, 'cy'), (4, 1, NULL, 'dan')",
  'INSERT INTO b VALUES (10, 1, 0, 7), (11, 2, 8, 12), (12, NULL, 20, 30)',
  "INSERT INTO c VALUES (100, 1.00, 'one'), (101, 2.00, 'two'), (102, 2.50, 'half'), (103, NULL, 'none')",
  'INSERT INTO m VALUES (1, 5), (1, 5), (2, 9), (NULL, 11)',
  'INSERT INTO u VALUES (6), (3)',
  'UPDATE a SET x = 9 WHERE id = 1',
  'UPDATE b SET lo = 4, hi = 9 WHERE id = 10',
  'INSERT INTO u VALUES (12)',
  'DELETE FROM u WHERE v = 12',
  'UPDATE a SET k = 2 WHERE id = 4',
  'INSERT INTO m VALUES (2, 9), (3, 25)',
  'DELETE FROM b WHERE id = 11',
  "INSERT INTO b VALUES (13, 2, 9, 16), (14, NULL, 1, 4)",
  'UPDATE u SET v = 1 WHERE v = 3',
  'DELETE FROM m WHERE k = 1',
  "UPDATE c SET k = 1 WHERE tag = 'half'",
  'DELETE FROM u',
  "INSERT INTO a VALUES (5, NULL, 20, 'eve')",
  'INSERT INTO u VALUES (9)',
  'DELETE FROM a WHERE id = 2',
];

/**
 * Materialized views: queries whose result has a unique key (the key of each input they keep; a
 * comma join on the other table's primary key keeps just the first table's).
 */
const VIEWS: Readonly<Record<string, string>> = {
  cross_join: 'SELECT a.id AS aid, b.id AS bid, a.x AS x, b.lo AS lo FROM a CROSS JOIN b',
  less_than: 'SELECT a.id AS aid, b.id AS bid FROM a JOIN b ON a.x < b.lo',
  between_bounds: 'SELECT a.id AS aid, b.id AS bid, a.name AS name FROM a JOIN b ON a.x BETWEEN b.lo AND b.hi',
  enrichment: 'SELECT a.id AS aid, b.lo AS lo FROM a, b WHERE a.x = b.id',
  three_tables: 'SELECT a.id AS aid, b.id AS bid, c.id AS cid, c.tag AS tag FROM a, b, c WHERE a.k = b.k AND c.k = a.k AND b.hi > a.x',
  or_branches: 'SELECT a.id AS aid, b.id AS bid FROM a, b WHERE (a.k = b.k AND a.x > 8) OR (b.k = a.k AND b.hi < 10)',
  not_distinct: 'SELECT a.id AS aid, b.id AS bid FROM a JOIN b ON a.k IS NOT DISTINCT FROM b.k',
  natural_join: 'SELECT * FROM (SELECT id AS aid, k, name FROM a) AS p NATURAL JOIN (SELECT id AS bid, k, hi FROM b) AS q',
  names_above_max: 'SELECT a.name AS name, COUNT(*) AS n FROM a, (SELECT MAX(v) AS top FROM u) AS s WHERE a.x > s.top GROUP BY a.name',
};

/**
 * Queries without a unique key, run into a collect sink: `[sink columns, query, the query as
 * Postgres can run it]` (Postgres runs a FULL JOIN only on equalities; the same result is the LEFT
 * JOIN and the right rows without a match). A join with a global aggregate keeps no key yet: the
 * unique-key derivation gives a global aggregate none, rather than the empty one.
 */
const COLLECTED: Readonly<Record<string, readonly [string, string, string?]>> = {
  above_max: ['aid INT, x INT', 'SELECT a.id AS aid, a.x AS x FROM a, (SELECT MAX(v) AS top FROM u) AS s WHERE a.x > s.top'],
  at_most_min: ['aid INT, name STRING', 'SELECT a.id AS aid, a.name AS name FROM (SELECT MIN(v) AS low FROM u) AS s JOIN a ON a.x - 5 <= s.low'],
  left_between: ['aid INT, bid INT', 'SELECT a.id AS aid, b.id AS bid FROM a LEFT JOIN b ON a.x BETWEEN b.lo AND b.hi'],
  right_less: ['aid INT, bid INT', 'SELECT a.id AS aid, b.id AS bid FROM a RIGHT JOIN b ON a.x < b.lo AND b.hi > 5'],
  full_between: [
    'v INT, bid INT',
    'SELECT m.v AS v, b.id AS bid FROM m FULL JOIN b ON m.v BETWEEN b.lo AND b.hi',
    'SELECT m.v AS v, b.id AS bid FROM m LEFT JOIN b ON m.v BETWEEN b.lo AND b.hi UNION ALL SELECT NULL, b.id FROM b WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.v BETWEEN b.lo AND b.hi)',
  ],
  multiset_cross: ['k INT, v INT', 'SELECT m.k AS k, u.v AS v FROM m CROSS JOIN u'],
  multiset_above: ['k INT, v INT', 'SELECT m.k AS k, m.v AS v FROM m, (SELECT MAX(v) AS top FROM u) AS s WHERE m.v >= s.top'],
  using_full: ['k INT, x INT, v INT', 'SELECT * FROM (SELECT k, x FROM a) AS p FULL JOIN (SELECT k, v FROM m) AS q USING (k)'],
  using_left: ['k INT, name STRING, lo INT', 'SELECT k, name, lo FROM a LEFT JOIN (SELECT CAST(k AS INT) AS k, lo FROM b) AS q USING (k)'],
  natural_right: ['k INT, name STRING, v INT', 'SELECT * FROM (SELECT k, name FROM a) AS p NATURAL RIGHT JOIN m'],
};

/** Rows as sorted JSON arrays, values in column order (Postgres's int8 and numeric text compared as numbers where weir has numbers). */
const canonical = (rows: readonly (readonly unknown[])[]): string[] => rows.map((r) => JSON.stringify(r.map((v) => (typeof v === 'bigint' ? Number(v) : v)))).sort();

describe('join forms against PostgreSQL', () => {
  const home = process.cwd();
  beforeAll(() => process.chdir(mkdtempSync(join(tmpdir(), 'weir-join-forms-'))));
  afterAll(() => process.chdir(home));

  it('every form, kept by a materialized view or a job under INSERT, UPDATE and DELETE, equals the batch query in Postgres after every change', async () => {
    resetCollected();
    const url = await freshDatabase('weir_join_forms');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const pgQuery = async (sql: string): Promise<Record<string, unknown>[]> => (await client.query<Record<string, unknown>>(sql)).rows;
    for (const table of TABLES) await pgQuery(table.pg);
    const engine = createEngine({ connectors: [collectConnector] });
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}'; ${TABLES.map((t) => `${t.weir};`).join('\n')}`);
    for (const [name, sql] of Object.entries(VIEWS)) await engine.execute(`CREATE MATERIALIZED VIEW ${name} WITH ('url' = '${url}') AS ${sql}`);
    await engine.execute("SET 'execution.checkpointing.interval' = '1 h'");
    for (const [name, [columns, sql]] of Object.entries(COLLECTED)) {
      const started = await engine.execute(`CREATE TABLE ${name} (${columns}) WITH ('connector' = 'collect', 'transactional' = 'true'); INSERT INTO ${name} ${sql}`);
      expect(started[started.length - 1]?.kind).toBe('job');
    }
    for (const sql of [VIEWS.names_above_max!, COLLECTED.above_max![1], COLLECTED.at_most_min![1]]) {
      const [plan] = await engine.execute(`EXPLAIN ${sql}`);
      expect(plan?.kind === 'text' ? plan.text : '').toContain('DynamicFilter(');
    }

    const [key] = await pgQuery("SELECT string_agg(a.attname, ',') AS columns FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'enrichment'::regclass AND i.indisprimary");
    expect(key?.columns).toBe('aid');
    const nonEmpty = new Set<string>();
    for (const change of CHANGES) {
      await engine.execute(`${change}; FLUSH;`);
      await pgQuery(change);
      for (const [name, sql] of Object.entries(VIEWS)) {
        const view = `SELECT * FROM ${name}`;
        expect({ change, name, missing: await pgQuery(`(${sql}) EXCEPT ALL (${view})`) }).toEqual({ change, name, missing: [] });
        expect({ change, name, extra: await pgQuery(`(${view}) EXCEPT ALL (${sql})`) }).toEqual({ change, name, extra: [] });
        if ((await pgQuery(view)).length > 0) nonEmpty.add(name);
      }
      for (const [name, [, sql, pgSql]] of Object.entries(COLLECTED)) {
        const expected = (await pgQuery(pgSql ?? sql)).map((r) => Object.values(r));
        expect({ change, name, rows: canonical(materialize(collected(name))) }).toEqual({ change, name, rows: canonical(expected) });
        if (expected.length > 0) nonEmpty.add(name);
      }
    }
    expect([...nonEmpty].sort()).toEqual([...Object.keys(VIEWS), ...Object.keys(COLLECTED)].sort());

    // Batch queries take no checkpoints (a second run of one query text would otherwise resume the finished first).
    await engine.execute("RESET 'execution.checkpointing.interval'; SET 'execution.runtime-mode' = 'batch'");
    for (const [sql, pgSql] of [...Object.values(VIEWS).map((q) => [q, q]), ...Object.values(COLLECTED).map(([, q, p]) => [q, p ?? q])] as const) {
      const expected = (await pgQuery(pgSql)).map((r) => Object.values(r));
      const rows = (await engine.query(sql)).map((r) => Object.values(r));
      expect({ sql, rows: canonical(rows) }).toEqual({ sql, rows: canonical(expected.map((r) => r.map((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v)))) });
    }
    await engine.execute("SET 'table.optimizer.join-to-dynamic-filter.enabled' = 'false'");
    const [nestedLoop] = await engine.execute(`EXPLAIN ${COLLECTED.above_max![1]}`);
    expect(nestedLoop?.kind === 'text' ? nestedLoop.text : '').toContain('Join(joinType=[InnerJoin], where=[(x > top)]');
    const viaJoin = (await engine.query(COLLECTED.above_max![1])).map((r) => Object.values(r));
    expect(canonical(viaJoin)).toEqual(canonical((await pgQuery(COLLECTED.above_max![1])).map((r) => Object.values(r))));
    expect(viaJoin.length).toBeGreaterThan(0);
    await engine.close({ graceful: true });
    await client.end();
  }, 180_000);
});
