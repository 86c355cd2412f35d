/**
 * Exactly-once into PostgreSQL under crashes: a deterministic source feeds an upsert sink (GROUP
 * BY) and an append sink (every row) through two-phase commit. `weir run` is killed with SIGKILL
 * at random moments and at each failpoint of the sink protocol, and Postgres itself is crashed
 * (immediate stop) while transactions are prepared; after the final run the aggregate table
 * equals the same query computed by Postgres over the appended rows (EXCEPT ALL both ways is
 * empty), every source row is there exactly once, and no prepared transaction is left.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { crashScriptPreamble, runChild, runUntilDone } from '../support/crash-harness.js';
import { expectRawAndAggregateExact, rawAndAggregateSinks } from '../support/raw-and-aggregate-sinks.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';

const ROWS = 12_000;

/** A fresh database on a cluster, and a job script writing into it. */
async function setup(serverUrl: string, semantic = 'exactly-once'): Promise<{ dir: string; script: string; url: string }> {
  const url = await freshDatabase('weir_e2e', serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'weir-pg-e2e-'));
  const script = join(dir, 'job.sql');
  writeFileSync(
    script,
    `${crashScriptPreamble(dir, 'pg-e2e', ROWS)}
     ${rawAndAggregateSinks(url, semantic)}`,
  );
  return { dir, script, url };
}

const checkExact = (url: string): Promise<void> => expectRawAndAggregateExact(url, ROWS, 'pg-e2e');

describe('exactly-once into PostgreSQL', () => {
  const serverUrl = (): string => process.env.WEIR_TEST_PG_URL!;

  it('killed at random moments three times: the tables equal the batch answer, nothing left prepared', async () => {
    const { dir, script, url } = await setup(serverUrl());
    await runUntilDone(script, dir, [300, 700, 500].map((d) => ({ killAfterMs: d + Math.floor(Math.random() * 400) })));
    await checkExact(url);
  });

  for (const failpoint of [
    'sink.before-prepare=crash@6',
    'sink.after-prepare-before-ack=crash@6',
    'checkpoint.after-acks-before-metadata=crash@4',
    'checkpoint.after-metadata-before-notify=crash@4',
    'sink.after-complete-before-commit=crash@5',
    'sink.between-commits=crash@5',
    'checkpoint.final-after-metadata=crash@1',
  ]) {
    it(`crash at ${failpoint.split('=')[0]}: the tables equal the batch answer, nothing left prepared`, async () => {
      const { dir, script, url } = await setup(serverUrl());
      await runUntilDone(script, dir, [{ failpoints: failpoint }]);
      await checkExact(url);
    });
  }

  it('crash during recovery, then restart: exact', async () => {
    const { dir, script, url } = await setup(serverUrl());
    await runUntilDone(script, dir, [{ failpoints: 'sink.after-complete-before-commit=crash@3' }, { failpoints: 'recovery.during-restore=crash@1' }]);
    await checkExact(url);
  });

  it('at-least-once: nothing lost, the upsert table converges', async () => {
    const { dir, script, url } = await setup(serverUrl(), 'at-least-once');
    await runUntilDone(script, dir, [{ killAfterMs: 600 }]);
    const [raw] = await pgQuery<{ ids: string }>(url, 'SELECT count(DISTINCT id) AS ids FROM raw');
    expect(raw?.ids).toBe(String(ROWS));
    const batch = 'SELECT k, count(*) AS n, sum(v) AS total, max(v) AS hi FROM (SELECT DISTINCT id, k, v FROM raw) r GROUP BY k';
    expect(await pgQuery(url, `(${batch}) EXCEPT ALL (SELECT k, n, total, hi FROM agg)`)).toEqual([]);
  });

  describe('with Postgres crashed while transactions are prepared', () => {
    let cluster: PostgresCluster;
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    });
    afterAll(() => cluster?.destroy());

    it('the job fails, Postgres comes back, the rerun ends exact', async () => {
      const { dir, script, url } = await setup(cluster.url);
      const run = runChild(script, { cwd: dir });
      await new Promise((r) => setTimeout(r, 700));
      const prepared = await pgQuery<{ gid: string }>(url, 'SELECT gid FROM pg_prepared_xacts');
      cluster.stop('immediate');
      const failed = await run;
      expect(failed.code, 'weir fails when its database goes away').toBe(1);
      cluster.start();
      await runUntilDone(script, dir, []);
      await checkExact(url);
      expect(prepared.every((p) => p.gid.startsWith('weir1.'))).toBe(true);
    });
  });
});
