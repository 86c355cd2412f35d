/**
 * Any query can be a materialized view: keyless queries (joins of keyless tables, SELECT * of a
 * keyless table that is updated and deleted from, GROUP BY keys left out of the select list, a
 * Top-N of keyless rows) become multiset tables, and global aggregates one-row tables that exist
 * from the start. Every view is compared, after each change and FLUSH, with PostgreSQL running the
 * view's query over mirrors of the same tables, as multisets.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';

/** Tables as weir declares them (writable, no connector) and as their Postgres mirrors. */
const TABLES = [
  { weir: 'CREATE TABLE a (x INT, y STRING)', postgres: 'CREATE TABLE a (x INT, y TEXT)' },
  { weir: 'CREATE TABLE b (x INT, z INT)', postgres: 'CREATE TABLE b (x INT, z INT)' },
  { weir: 'CREATE TABLE k (id INT, g INT, v INT, PRIMARY KEY (id) NOT ENFORCED)', postgres: 'CREATE TABLE k (id INT PRIMARY KEY, g INT, v INT)' },
];

/** Changes applied in order to the weir tables and their mirrors (duplicates, NULLs, updates and deletes of duplicates). */
const CHANGES = [
  "INSERT INTO a VALUES (1, 'p'), (1, 'p'), (2, 'q'), (NULL, 'r'), (3, NULL)",
  'INSERT INTO b VALUES (1, 10), (1, 11), (2, 20), (2, 20), (4, 40)',
  'INSERT INTO k VALUES (1, 1, 5), (2, 1, 7), (3, 2, 7), (4, NULL, 1)',
  "UPDATE a SET y = 's' WHERE x = 1",
  'DELETE FROM b WHERE z = 20',
  'UPDATE k SET v = 9 WHERE id = 2',
  "INSERT INTO a VALUES (2, 'q'), (4, 't')",
  'DELETE FROM a WHERE x IS NULL',
  'INSERT INTO b VALUES (3, 30), (2, 21)',
  'DELETE FROM k WHERE g = 1',
  'DELETE FROM a',
  "INSERT INTO a VALUES (1, 'u')",
];

/** View name → query, in the dialect both weir and PostgreSQL accept. */
const VIEWS: Readonly<Record<string, string>> = {
  keyless_select: 'SELECT x, y FROM a',
  keyless_join: 'SELECT a.x, a.y, b.z FROM a JOIN b ON a.x = b.x',
  keyless_left_join: 'SELECT a.y, b.z FROM a LEFT JOIN b ON a.x = b.x',
  group_keys_not_selected: 'SELECT COUNT(*) AS n FROM a GROUP BY x, y',
  global_aggregate: 'SELECT COUNT(*) AS n, SUM(v) AS total, MIN(v) AS low, COUNT(DISTINCT g) AS groups FROM k',
  global_over_keyless: 'SELECT COUNT(*) AS n, COUNT(y) AS ys FROM a',
  top_n_keyless: 'SELECT x, y FROM (SELECT x, y, ROW_NUMBER() OVER (PARTITION BY x ORDER BY y) AS rn FROM a) t WHERE rn <= 1',
  keyed_projection: 'SELECT g, v FROM k',
  aggregate_of_aggregate: 'SELECT n, COUNT(*) AS c FROM (SELECT x, COUNT(*) AS n FROM a GROUP BY x) t GROUP BY n',
};

/** The visible columns of each view, in order. */
const VIEW_COLUMNS: Readonly<Record<string, string>> = {
  keyless_select: 'x, y',
  keyless_join: 'x, y, z',
  keyless_left_join: 'y, z',
  group_keys_not_selected: 'n',
  global_aggregate: 'n, total, low, groups',
  global_over_keyless: 'n, ys',
  top_n_keyless: 'x, y',
  keyed_projection: 'g, v',
  aggregate_of_aggregate: 'n, c',
};

describe('materialized views over any query', () => {
  const home = process.cwd();
  let engine: Engine;
  let url: string;

  beforeAll(async () => {
    process.chdir(mkdtempSync(join(tmpdir(), 'weir-any-view-')));
    url = await freshDatabase('weir_any_view');
    engine = createEngine();
    await engine.execute(`SET 'state.checkpoints.dir' = '${join(process.cwd(), 'checkpoints')}'; ${TABLES.map((t) => t.weir).join('; ')}`);
    await pgQuery(url, `CREATE SCHEMA mirror; SET search_path = mirror; ${TABLES.map((t) => t.postgres.replace('CREATE TABLE ', 'CREATE TABLE mirror.')).join('; ')}`);
  });

  afterAll(async () => {
    await engine.close({ graceful: true });
    process.chdir(home);
  });

  /** Fails naming the view and the rows in one but not the other (one query for all views: the rows each lacks or has too many). */
  async function expectViewsEqual(after: string): Promise<void> {
    const checks = Object.entries(VIEWS).map(([name, query]) => {
      const view = `SELECT ${VIEW_COLUMNS[name]!} FROM public.${name}`;
      const batch = query.replace(/\b(FROM|JOIN) (a|b|k)\b/g, '$1 mirror.$2');
      return `SELECT '${name}' AS view, 'missing' AS side, to_jsonb(d) AS row FROM ((${batch}) EXCEPT ALL (${view})) d
        UNION ALL SELECT '${name}', 'extra', to_jsonb(d) FROM ((${view}) EXCEPT ALL (${batch})) d`;
    });
    expect({ after, differences: await pgQuery(url, checks.join(' UNION ALL ')) }).toEqual({ after, differences: [] });
  }

  it('creates every view, each equal to the query after every change', { timeout: 300_000 }, async () => {
    for (const [name, query] of Object.entries(VIEWS)) await engine.execute(`CREATE MATERIALIZED VIEW ${name} WITH ('url' = '${url}') AS ${query}`);
    await engine.execute('FLUSH');
    await expectViewsEqual('creation');
    for (const change of CHANGES) {
      await engine.execute(`${change}; FLUSH;`);
      await pgQuery(url, `SET search_path = mirror; ${change}`);
      await expectViewsEqual(change);
    }
  });

  it('a global aggregate is one row from the start: COUNT of nothing is 0, SUM of nothing NULL', async () => {
    const fresh = await freshDatabase('weir_global');
    const other = createEngine();
    const dir = mkdtempSync(join(tmpdir(), 'weir-global-'));
    try {
      await other.execute(`SET 'state.checkpoints.dir' = '${dir}'; CREATE TABLE e (v INT);
        CREATE MATERIALIZED VIEW totals WITH ('url' = '${fresh}') AS SELECT COUNT(*) AS n, SUM(v) AS s, COUNT(DISTINCT v) AS d FROM e; FLUSH;`);
      expect(await pgQuery(fresh, 'SELECT n, s, d FROM totals')).toEqual([{ n: '0', s: null, d: '0' }]);
      await other.execute('INSERT INTO e VALUES (1), (2), (2); FLUSH;');
      expect(await pgQuery(fresh, 'SELECT n, s, d FROM totals')).toEqual([{ n: '3', s: 5, d: '2' }]);
      await other.execute('DELETE FROM e; FLUSH;');
      expect(await pgQuery(fresh, 'SELECT n, s, d FROM totals')).toEqual([{ n: '0', s: null, d: '0' }]);
      // In batch mode the writable table is read to its current end: the query ends, with its one row.
      await other.execute("SET 'execution.runtime-mode' = 'batch'");
      expect(await other.query('SELECT COUNT(*) AS n, SUM(v) AS s, MAX(v) AS m FROM e')).toEqual([{ n: 0, s: null, m: null }]);
      expect(await other.query('SELECT COUNT(*) AS n FROM e WHERE v > 100 HAVING COUNT(*) = 0')).toEqual([{ n: 0 }]);
      expect(await other.query('SELECT COUNT(*) AS n, SUM(x) AS s FROM (VALUES (1), (2)) AS t(x) WHERE x > 5')).toEqual([{ n: 0, s: null }]);
    } finally {
      await other.close({ graceful: true });
    }
  });

  it('views over constant input and bounded sources finish without breaking FLUSH, CREATE or DROP afterwards', async () => {
    const fresh = await freshDatabase('weir_bounded_views');
    const other = createEngine();
    const dir = mkdtempSync(join(tmpdir(), 'weir-bounded-views-'));
    try {
      // Each statement right after the one before: the views' job may be finishing meanwhile.
      await other.execute(`SET 'state.checkpoints.dir' = '${dir}';
        CREATE TABLE ten (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
        CREATE MATERIALIZED VIEW constants WITH ('url' = '${fresh}') AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(k, s) UNION ALL SELECT 3, 'c';
        FLUSH;
        CREATE MATERIALIZED VIEW counted WITH ('url' = '${fresh}') AS SELECT COUNT(*) AS n, SUM(id) AS total FROM ten;
        CREATE MATERIALIZED VIEW ids WITH ('url' = '${fresh}') AS SELECT id FROM ten WHERE id > 7;
        FLUSH;
        DROP MATERIALIZED VIEW constants;
        FLUSH;`);
      expect(await pgQuery(fresh, 'SELECT n, total FROM counted')).toEqual([{ n: '10', total: '55' }]);
      expect(await pgQuery(fresh, 'SELECT id FROM ids ORDER BY id')).toEqual([{ id: '8' }, { id: '9' }, { id: '10' }]);
      expect(await pgQuery(fresh, "SELECT to_regclass('constants') IS NULL AS gone")).toEqual([{ gone: true }]);
      const [read] = await other.execute('SELECT n FROM counted');
      expect(read).toMatchObject({ kind: 'rows', rows: [[10]] });
    } finally {
      await other.close({ graceful: true });
    }
  });

  it('EXPLAIN CREATE MATERIALIZED VIEW shows how the table is keyed, and that an ORDER BY without LIMIT is ignored', async () => {
    const other = createEngine();
    try {
      await other.execute(`CREATE TABLE e (x INT, y STRING)`);
      const explain = async (sql: string): Promise<string> => {
        const [result] = await other.execute(`EXPLAIN ${sql}`);
        return result?.kind === 'text' ? result.text : JSON.stringify(result);
      };
      const ordered = await explain(`CREATE MATERIALIZED VIEW counts WITH ('url' = '${url}') AS SELECT x, COUNT(*) AS n FROM e GROUP BY x ORDER BY n`);
      expect(ordered).toMatch(/\nSink\(table=\[default_catalog\.default_database\.counts\], fields=\[x, n\]/);
      expect(ordered).toContain("ORDER BY without LIMIT is ignored");
      expect(ordered).not.toMatch(/Sort|Rank/);
      const keyless = await explain(`CREATE MATERIALIZED VIEW rows_of_e WITH ('url' = '${url}') AS SELECT x, y FROM e`);
      expect(keyless).not.toContain('ORDER BY');
      // Nothing was created by explaining it.
      await expect(other.execute('DESCRIBE counts')).rejects.toThrow(/counts/);
    } finally {
      await other.close();
    }
  });
});
