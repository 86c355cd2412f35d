/**
 * Jobs restart themselves, in process, under `restart-strategy.type`: a failed job runs again from
 * its latest completed checkpoint (state restored, sources rewound, the transactional sink
 * committing what that checkpoint prepared) and its output equals an uninterrupted run's; a job
 * that runs out of restarts fails with the last error and the earlier ones; errors a restart
 * cannot help fail at once; restarts show in weir.jobs, SHOW JOBS and the metrics.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import { setFailpoints } from '../../src/runtime/checkpoint/failpoints.js';
import { materialize } from '../runtime/operator-harness.js';
import { collectConnector, collected, resetCollected } from '../support/collect-connector.js';
import { startJob } from '../support/jobs.js';

const ROWS = 6_000;

function engine(warnings: string[] = []): Engine {
  return createEngine({ connectors: [collectConnector], onWarning: (m) => void warnings.push(m) });
}

function script(settings: string, table = 'totals'): string {
  const dir = mkdtempSync(join(tmpdir(), 'weir-restarts-'));
  return `SET 'state.checkpoints.dir' = '${dir}';
    SET 'execution.checkpointing.interval' = '30 ms';
    SET 'pipeline.name' = '${table}';
    ${settings}
    CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '8000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '19', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE ${table} (k INT, n BIGINT, total INT) WITH ('connector' = 'collect', 'transactional' = 'true');
    INSERT INTO ${table} SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;`;
}

/** The uninterrupted answer, computed by weir without checkpoints. */
async function expected(): Promise<unknown[][]> {
  const e = engine();
  await startJob(
    e,
    `CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000000',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${ROWS}',
      'fields.k.min' = '0', 'fields.k.max' = '19', 'fields.v.min' = '0', 'fields.v.max' = '1000');
    CREATE TABLE reference (k INT, n BIGINT, total INT) WITH ('connector' = 'collect');
    INSERT INTO reference SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;`,
  ).then((job) => job.result());
  return materialize(collected('reference'));
}

beforeEach(() => resetCollected());
afterEach(() => setFailpoints(''));

describe('restart strategies', () => {
  it('fixed-delay: a job failing between a checkpoint and its commit restarts from it, and the output is exact', async () => {
    const reference = await expected();
    setFailpoints('sink.after-complete-before-commit=error@3');
    const warnings: string[] = [];
    const e = engine(warnings);
    const job = await startJob(e, script(`SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.delay' = '50 ms';`));
    expect(await job.result()).toBe('FINISHED');
    expect(job.restarts).toBe(1);
    expect(materialize(collected('totals'))).toEqual(reference);
    expect(warnings.find((w) => w.includes('failed and restarts'))).toMatch(/^job 'totals' failed and restarts in 50 ms \(restart 1 of the fixed-delay strategy\): failpoint sink\.after-complete-before-commit triggered$/);
    expect(warnings.find((w) => w.includes('restarted from'))).toMatch(/^job 'totals' restarted from checkpoint \d+ at .*chk-\d+$/);

    const [row] = await e.query(`SELECT status, restarts, last_failure, last_restart_time FROM weir.jobs WHERE job_id = '${job.id}'`);
    expect(row).toEqual({ status: 'FINISHED', restarts: 1, last_failure: 'failpoint sink.after-complete-before-commit triggered', last_restart_time: expect.any(Date) });
    const [shown] = await e.execute('SHOW JOBS');
    expect(shown).toMatchObject({ kind: 'rows', rows: [expect.arrayContaining(['1', expect.stringMatching(/Z failpoint sink\.after-complete-before-commit triggered$/)])] });
    expect(await e.metricsText()).toMatch(new RegExp(`weir_job_restarts_total\\{job="${job.id}",job_name="totals"\\} 1`));
  });

  it('restarts several times, from the latest checkpoint each time; the checkpoint history runs across attempts', async () => {
    const reference = await expected();
    setFailpoints('sink.before-prepare=error@3');
    const e = engine();
    const job = await startJob(e, script(`SET 'restart-strategy.type' = 'failure-rate'; SET 'restart-strategy.failure-rate.max-failures-per-interval' = '3'; SET 'restart-strategy.failure-rate.delay' = '20 ms';`));
    expect(await job.result()).toBe('FINISHED');
    expect(job.restarts).toBe(1);
    expect(materialize(collected('totals'))).toEqual(reference);
    const history = job.checkpointHistory();
    expect(history.some((c) => c.status === 'FAILED')).toBe(true);
    expect(job.checkpointStats().completed).toBe(history.filter((c) => c.status === 'COMPLETED').length);
  });

  it('a job that runs out of restarts fails with its last error, the limit and the earlier failures', async () => {
    setFailpoints('sink.before-prepare=error');
    const e = engine();
    const job = await startJob(e, script(`SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.attempts' = '2'; SET 'restart-strategy.fixed-delay.delay' = '10 ms';`));
    expect(await job.result()).toBe('FAILED');
    expect(job.restarts).toBe(2);
    expect(job.failures()).toHaveLength(3);
    expect(String(job.error)).toMatch(
      /^WeirError: failpoint sink\.before-prepare triggered; 1 checkpoints failed in a row, more than tolerated \(.*\) \(the job failed 3 times, and restart-strategy 'fixed-delay' allows 2 restart\(s\) \(restart-strategy\.fixed-delay\.attempts\); earlier failures: \S+Z failpoint sink\.before-prepare triggered.*; \S+Z failpoint/,
    );
  });

  it('with checkpointing and nothing configured, the strategy is exponential-delay', async () => {
    setFailpoints('sink.before-prepare=error@3');
    const warnings: string[] = [];
    const e = engine(warnings);
    const job = await startJob(e, script(`SET 'restart-strategy.exponential-delay.initial-backoff' = '20 ms';`));
    expect(await job.result()).toBe('FINISHED');
    expect(warnings.find((w) => w.includes('failed and restarts'))).toMatch(/restarts in \d+ ms \(restart 1 of the exponential-delay strategy\)/);
  });

  it('an error a restart cannot help fails the job at once, whatever the strategy', async () => {
    const e = engine();
    const job = await startJob(
      e,
      script(`SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.attempts' = '5';`).replace(
        'SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k',
        'SELECT k, COUNT(*), SUM(v / (id - 3000)) FROM src GROUP BY k',
      ),
    );
    expect(await job.result()).toBe('FAILED');
    expect(job.restarts).toBe(0);
    expect(String(job.error)).toContain('division by zero');
  });

  it("'none' fails at the first failure, and a job without checkpoints is not restarted unless configured", async () => {
    setFailpoints('sink.before-prepare=error@2');
    const job = await startJob(engine(), script(`SET 'restart-strategy.type' = 'none';`));
    expect(await job.result()).toBe('FAILED');
    expect(job.restarts).toBe(0);
    expect(String(job.error)).toBe('WeirError: failpoint sink.before-prepare triggered; 1 checkpoints failed in a row, more than tolerated (execution.checkpointing.tolerable-failed-checkpoints = 0)');
  });

  it('cancelling a job that waits to restart cancels it at once', async () => {
    setFailpoints('sink.before-prepare=error@2');
    const e = engine();
    const job = await startJob(e, script(`SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.delay' = '1 min';`));
    while (job.status !== 'RESTARTING') await new Promise((r) => setTimeout(r, 5));
    await expect(job.checkpoint()).rejects.toThrow("job 'totals' is restarting after a failure and cannot be checkpointed now");
    // The backoff is a minute, longer than the test may take: cancel() returning at all means it did not wait it out.
    await job.cancel();
    expect(job.status).toBe('CANCELED');
  });
});
