/**
 * Exactly-once into the embedded PostgreSQL (PGlite under `.weir/postgres`), used when no server is
 * configured: the same job as the server test, killed with SIGKILL at random and at a failpoint of
 * the commit protocol, ends with the aggregate equal to Postgres's own answer over the appended
 * rows, every row exactly once and nothing left prepared. Also: two users of one data directory
 * share one server, and a second process joins the first instead of opening the files twice.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgQuery } from '../support/pg-query.js';
import { acquireEmbeddedPostgres } from '../../src/connectors/postgres/embedded-postgres.js';
import { crashScriptPreamble, FaultPlan, runUntilDone } from '../support/crash-harness.js';

const ROWS = 6_000;

/** The environment without any PostgreSQL server in it, so that weir must use the embedded one. */
function withoutServer(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'DATABASE_URL' && !key.startsWith('PG')));
}

describe('the embedded PostgreSQL', () => {
  it('is exactly-once under crashes: the tables equal the batch answer, nothing left prepared', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weir-embedded-'));
    const script = join(dir, 'job.sql');
    writeFileSync(
      script,
      `${crashScriptPreamble(dir, 'embedded-e2e', ROWS)}
       CREATE TABLE raw_pg (id BIGINT, k INT, v INT) WITH ('connector' = 'postgres', 'table-name' = 'raw');
       CREATE TABLE agg_pg (k INT, n BIGINT, total INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'postgres', 'table-name' = 'agg');
       EXECUTE STATEMENT SET BEGIN
         INSERT INTO raw_pg SELECT id, k, v FROM src;
         INSERT INTO agg_pg SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
       END;`,
    );
    const plan = new FaultPlan('embedded postgres crash');
    await runUntilDone(script, dir, [{ killAfterMs: plan.delay('kill', 1_500, 2_000) }, { failpoints: 'sink.after-complete-before-commit=crash@3' }], withoutServer());
    const server = await acquireEmbeddedPostgres(join(dir, '.weir', 'postgres'));
    try {
      const [raw] = await pgQuery<{ n: string; ids: string }>(server.url, 'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM raw');
      expect(raw).toEqual({ n: String(ROWS), ids: String(ROWS) });
      const batch = 'SELECT k, count(*) AS n, sum(v) AS total FROM raw GROUP BY k';
      const sink = 'SELECT k, n, total FROM agg';
      expect(await pgQuery(server.url, `(${batch}) EXCEPT ALL (${sink})`)).toEqual([]);
      expect(await pgQuery(server.url, `(${sink}) EXCEPT ALL (${batch})`)).toEqual([]);
      expect(await pgQuery(server.url, 'SELECT gid FROM pg_prepared_xacts')).toEqual([]);
    } finally {
      await server.release();
    }
  }, 120_000);

  it('is shared by the users of one directory and stops with the last of them', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'weir-embedded-')), 'postgres');
    const first = await acquireEmbeddedPostgres(dir);
    const second = await acquireEmbeddedPostgres(dir);
    expect(second.url).toBe(first.url);
    await pgQuery(first.url, 'CREATE TABLE shared (x int)');
    await first.release();
    expect(await pgQuery(second.url, 'SELECT count(*)::int AS n FROM shared')).toEqual([{ n: 0 }]);
    await second.release();
    await expect(pgQuery(first.url, 'SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    const again = await acquireEmbeddedPostgres(dir);
    try {
      expect(await pgQuery(again.url, 'SELECT count(*)::int AS n FROM shared')).toEqual([{ n: 0 }]);
    } finally {
      await again.release();
    }
  }, 60_000);
});
