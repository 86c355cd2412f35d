/**
 * Exactly-once into PostgreSQL under crashes: a deterministic source feeds an upsert sink (GROUP
 * BY) and an append sink (every row) through two-phase commit. `weir run` is killed with SIGKILL
 * at random moments and at each failpoint of the sink protocol, and Postgres itself is crashed
 * (immediate stop) while transactions are prepared; after the final run the aggregate table
 * equals the same query computed by Postgres over the appended rows (EXCEPT ALL both ways is
 * empty), every source row is there exactly once, and no prepared transaction is left.
 */
import { mkdtempSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCheckpointStorage } from '../../src/runtime/checkpoint/file-checkpoint-storage.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { crashScriptPreamble, FaultPlan, runChild, runUntilDone } from '../support/crash-harness.js';
import { expectRawAndAggregateExact, rawAndAggregateSinks } from '../support/raw-and-aggregate-sinks.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';

const ROWS = 12_000;

/** A fresh database on a cluster, and a job script writing into it. */
async function setup(serverUrl: string, semantic = 'exactly-once', settings = ''): Promise<{ dir: string; script: string; url: string }> {
  const url = await freshDatabase('weir_e2e', serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'weir-pg-e2e-'));
  const script = join(dir, 'job.sql');
  writeFileSync(
    script,
    `${crashScriptPreamble(dir, 'pg-e2e', ROWS, settings)}
     ${rawAndAggregateSinks(url, semantic)}`,
  );
  return { dir, script, url };
}

const checkExact = (url: string): Promise<void> => expectRawAndAggregateExact(url, ROWS, 'pg-e2e');

describe('exactly-once into PostgreSQL', () => {
  const serverUrl = (): string => process.env.WEIR_TEST_PG_URL!;

  it('killed at random moments three times: the tables equal the batch answer, nothing left prepared', async () => {
    const { dir, script, url } = await setup(serverUrl());
    const plan = new FaultPlan('postgres exactly-once, random kills');
    await runUntilDone(script, dir, [300, 700, 500].map((d, i) => ({ killAfterMs: plan.delay(`kill ${i + 1}`, d, d + 400) })));
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

  it('crash between the final checkpoint and its commits: it holds no keyed state, only offsets and prepared transactions; the rerun commits them exactly once', async () => {
    const { dir, script, url } = await setup(serverUrl());
    const crashed = await runChild(script, { cwd: dir, failpoints: 'checkpoint.final-after-metadata=crash@1' });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const final = await new FileCheckpointStorage(join(dir, 'checkpoints'), 'pg-e2e').latest();
    expect(final?.metadata.finished).toBe(true);
    const subtasks = Object.entries(final!.metadata.operators).flatMap(([node, operator]) => operator.subtasks.map((state) => ({ node, ...state })));
    for (const subtask of subtasks) {
      expect(subtask.finished, `${subtask.node} finished`).toBe(true);
      expect(subtask.keyedStateChain, `${subtask.node} without keyed state`).toBeUndefined();
    }
    const pending = subtasks.flatMap((s) => (s.operatorState as { pending?: unknown[] } | undefined)?.pending ?? []);
    const prepared = await pgQuery<{ gid: string }>(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()');
    expect(pending.length, 'the sinks keep their prepared transactions in the final checkpoint').toBeGreaterThan(0);
    expect(prepared.length, 'and they are still prepared in Postgres').toBeGreaterThan(0);
    const rerun = await runChild(script, { cwd: dir });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/Job 'pg-e2e' already finished/);
    await checkExact(url);
  });

  it('crash during recovery, then restart: exact', async () => {
    const { dir, script, url } = await setup(serverUrl());
    await runUntilDone(script, dir, [{ failpoints: 'sink.after-complete-before-commit=crash@3' }, { failpoints: 'recovery.during-restore=crash@1' }]);
    await checkExact(url);
  });

  it('a corrupt _metadata fails the rerun naming the file; moved aside, the sinks refuse the older checkpoint they committed past', async () => {
    const { dir, script, url } = await setup(serverUrl());
    const stopped = await runChild(script, { cwd: dir, killAfterMs: 500, signal: 'SIGTERM' });
    expect(stopped.code, stopped.stderr).toBe(130);
    const savepoint = /stopped with savepoint (\S+)/.exec(stopped.stderr)![1]!;
    const savepointId = Number(/savepoint-(\d+)$/.exec(savepoint)![1]);
    const [before] = await pgQuery<{ n: string }>(url, 'SELECT count(*) AS n FROM raw');

    truncateSync(join(savepoint, '_metadata'), 60);
    const corrupt = await runChild(script, { cwd: dir });
    expect(corrupt.code, corrupt.stderr).toBe(1);
    expect(corrupt.stderr).toContain(`the latest savepoint of job 'pg-e2e' cannot be restored: ${join(savepoint, '_metadata')} is corrupt: not valid JSON`);
    expect(corrupt.stderr).toContain(`HINT: a storage fault damaged it`);
    expect(corrupt.stderr).not.toMatch(/resumed from/);

    renameSync(savepoint, `${savepoint}.damaged`);
    const behind = await runChild(script, { cwd: dir });
    expect(behind.code, behind.stderr).toBe(1);
    expect(behind.stderr).toMatch(new RegExp(`postgres sink '(raw|agg)_pg' has committed checkpoint ${savepointId} into public\\.(raw|agg) .*but the job is being restored from checkpoint \\d+`));
    const [after] = await pgQuery<{ n: string; ids: string }>(url, 'SELECT count(*) AS n, count(DISTINCT id) AS ids FROM raw');
    expect(after, 'nothing was written again').toEqual({ n: before!.n, ids: before!.n });
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

    it('without restarts the job fails, Postgres comes back, the rerun ends exact', async () => {
      // test/e2e/chaos.test.ts has the same crash ridden out by the restart strategy.
      const { dir, script, url } = await setup(cluster.url, 'exactly-once', "SET 'restart-strategy.type' = 'none';");
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
