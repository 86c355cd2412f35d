/**
 * Chaos: faults the job rides out by itself, under its restart strategy. The suite's own
 * PostgreSQL cluster is crashed (`pg_ctl stop -m immediate`) in the middle of a run and started
 * again seconds later: the same `weir run` — never run again by hand — restarts its job until the
 * database is back and ends with exit code 0, every sink table equal to the batch answer and no
 * transaction left prepared; so does a materialized view under `weir serve`, and a job reading a
 * NATS stream whose server is killed and started again. The weir process itself killed while its
 * job restarts resumes on the next run, exactly once. Every random delay
 * is drawn from a logged seed (see FaultPlan), so a failure can be replayed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashScriptPreamble, FaultPlan, runChild, runUntilDone } from '../support/crash-harness.js';
import { freshDatabase, pgQuery } from '../support/pg-query.js';
import { startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { expectRawAndAggregateExact, rawAndAggregateSinks } from '../support/raw-and-aggregate-sinks.js';
import { WEIR } from '../support/weir-cli.js';
import { createTestStream, HAS_NATS_SERVER, startOwnNatsServer, type OwnNatsServer, type TestStream } from '../connectors/nats/nats-test-util.js';

const ROWS = 24_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A job script writing `src` (ROWS rows at 8000/s) into `raw` and `agg` of `url`; `settings` are extra SET statements. */
function jobScript(url: string, job: string, settings = ''): { dir: string; script: string } {
  const dir = mkdtempSync(join(tmpdir(), 'weir-chaos-'));
  const script = join(dir, 'job.sql');
  writeFileSync(script, `${crashScriptPreamble(dir, job, ROWS, settings)}\n${rawAndAggregateSinks(url)}`);
  return { dir, script };
}

/** Crashes the cluster (an immediate stop: no shutdown checkpoint, clients cut off) and starts it again `downMs` later. */
async function crashPostgres(cluster: PostgresCluster, downMs: number): Promise<void> {
  cluster.stop('immediate');
  await sleep(downMs);
  cluster.start();
}

describe('chaos: faults a job rides out by itself', () => {
  let cluster: PostgresCluster;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });

  afterAll(() => cluster?.destroy());

  it('Postgres crashed mid-run for seconds: the same weir run restarts its job until it is back, exits 0, exact, nothing prepared', { timeout: 240_000 }, async () => {
    const plan = new FaultPlan('chaos: postgres crash under weir run');
    const url = await freshDatabase('weir_chaos', cluster.url);
    const { dir, script } = jobScript(url, 'chaos-pg');
    const crashAfter = plan.delay('crash Postgres after the submission', 500, 1_200);
    const downFor = plan.delay('keep Postgres down', 2_000, 4_000);
    let crash: Promise<void> | undefined;
    const run = await runChild(script, {
      cwd: dir,
      timeoutMs: 180_000,
      watch: (stderr) => {
        if (crash === undefined && stderr.includes('Submitted job')) crash = sleep(crashAfter).then(() => crashPostgres(cluster, downFor));
      },
    });
    await crash;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr, 'the job restarted by itself (exponential-delay, the default with checkpointing)').toMatch(/job 'chaos-pg' failed and restarts in \d+(\.\d)? m?s \(restart 1 of the exponential-delay strategy\)/);
    expect(run.stderr).toMatch(/job 'chaos-pg' restarted from checkpoint \d+/);
    await expectRawAndAggregateExact(url, ROWS, 'chaos-pg');
  });

  it('weir killed while its job restarts: the next run resumes from the latest checkpoint, exact', { timeout: 180_000 }, async () => {
    const url = await freshDatabase('weir_chaos', cluster.url);
    const { dir, script } = jobScript(url, 'chaos-kill', "SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.delay' = '300 ms';");
    // The job fails once between a completed checkpoint and its commit; its restart dies half-way through restoring.
    await runUntilDone(script, dir, [{ failpoints: 'sink.after-complete-before-commit=error@3,recovery.during-restore=crash@1' }]);
    await expectRawAndAggregateExact(url, ROWS, 'chaos-kill');
  });

  it('weir killed at a random moment of a restart (backoff, recovery or just after): exact after the next run', { timeout: 180_000 }, async () => {
    const plan = new FaultPlan('chaos: kill during a restart');
    const url = await freshDatabase('weir_chaos', cluster.url);
    const { dir, script } = jobScript(url, 'chaos-kill-random', "SET 'restart-strategy.type' = 'fixed-delay'; SET 'restart-strategy.fixed-delay.delay' = '400 ms';");
    const killAfter = plan.delay('kill after the restart is announced', 0, 900);
    let killer: NodeJS.Timeout | undefined;
    const killed = await runChild(script, {
      cwd: dir,
      failpoints: 'sink.after-complete-before-commit=error@3',
      watch: (stderr, kill) => {
        if (killer === undefined && stderr.includes('failed and restarts')) killer = setTimeout(() => kill('SIGKILL'), killAfter);
      },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    await runUntilDone(script, dir, []);
    await expectRawAndAggregateExact(url, ROWS, 'chaos-kill-random');
  });

  it('weir serve: a materialized view outlives a Postgres crash and ends equal to the batch answer', { timeout: 240_000 }, async () => {
    const plan = new FaultPlan('chaos: postgres crash under weir serve');
    const url = await freshDatabase('weir_chaos', cluster.url);
    const cwd = mkdtempSync(join(tmpdir(), 'weir-chaos-serve-'));
    const rows = 30_000;
    writeFileSync(
      join(cwd, 'setup.sql'),
      `SET 'execution.checkpointing.interval' = '200 ms';
       CREATE TABLE numbers (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000',
         'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '${rows}');
       CREATE MATERIALIZED VIEW buckets WITH ('url' = '${url}') AS
         SELECT id % 10 AS bucket, COUNT(*) AS n, SUM(id) AS total FROM numbers GROUP BY id % 10;`,
    );
    const committed = async (): Promise<number> => Number((await pgQuery<{ n: string | null }>(url, 'SELECT sum(n) AS n FROM buckets').catch(() => [{ n: null }]))[0]?.n ?? 0);
    // Define the view (the shell's process is killed once it runs; `weir serve` takes it over).
    const setup = await weirProcess(['-f', 'setup.sql'], cwd, async (kill, alive) => {
      while (alive() && (await committed()) === 0) await sleep(100);
      kill();
    });
    expect(setup.code, setup.stderr).toBeNull();

    const downFor = plan.delay('keep Postgres down', 2_000, 4_000);
    const serve = await weirProcess(['serve'], cwd, async (_kill, alive) => {
      const before = await committed();
      while (alive() && (await committed()) <= before) await sleep(100);
      if (alive()) await crashPostgres(cluster, downFor);
    });
    expect(serve.code, serve.stderr).toBe(0);
    expect(serve.stderr).toMatch(/failed and restarts in/);
    expect(serve.stderr).toContain('Every materialized view has finished: their sources ended.');
    const batch = `SELECT id % 10 AS bucket, count(*) AS n, sum(id) AS total FROM generate_series(1, ${rows}) AS id GROUP BY id % 10`;
    expect(await pgQuery(url, `(${batch}) EXCEPT ALL (SELECT bucket, n, total FROM buckets)`)).toEqual([]);
    expect(await pgQuery(url, `(SELECT bucket, n, total FROM buckets) EXCEPT ALL (${batch})`)).toEqual([]);
    expect(await pgQuery(url, 'SELECT gid FROM pg_prepared_xacts WHERE database = current_database()')).toEqual([]);
  });
});

describe.skipIf(!HAS_NATS_SERVER)('chaos: the NATS server restarted', () => {
  let cluster: PostgresCluster;
  let nats: OwnNatsServer;
  let stream: TestStream | undefined;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    nats = await startOwnNatsServer();
  });

  afterAll(async () => {
    await stream?.delete();
    await nats?.destroy();
    cluster?.destroy();
  });

  it('killed and started again while weir run reads it: the same run ends exit 0, exact, nothing prepared', { timeout: 240_000 }, async () => {
    const plan = new FaultPlan('chaos: nats restart under weir run');
    const rows = 12_000;
    stream = await createTestStream('chaos', nats.url);
    const url = await freshDatabase('weir_chaos', cluster.url);
    const dir = mkdtempSync(join(tmpdir(), 'weir-chaos-nats-'));
    const script = join(dir, 'job.sql');
    writeFileSync(
      script,
      `SET 'state.checkpoints.dir' = '${dir}/checkpoints';
       SET 'execution.checkpointing.interval' = '100 ms';
       SET 'pipeline.name' = 'chaos-nats';
       CREATE TABLE src (id BIGINT, k INT, v INT) WITH ('connector' = 'nats', 'url' = '${nats.url}', 'stream' = '${stream.name}',
         'subject' = '${stream.name}.events', 'format' = 'json', 'scan.bounded.mode' = 'sequence', 'scan.bounded.sequence' = '${rows}');
       ${rawAndAggregateSinks(url)}`,
    );
    const killAfter = plan.delay('kill NATS after the submission', 300, 900);
    const downFor = plan.delay('keep NATS down', 1_000, 3_000);
    const publishing = publishDeduplicated(stream, rows);
    let restart: Promise<void> | undefined;
    const run = await runChild(script, {
      cwd: dir,
      timeoutMs: 180_000,
      watch: (stderr) => {
        if (restart !== undefined || !stderr.includes('Submitted job')) return;
        restart = sleep(killAfter).then(async () => {
          await nats.stop();
          await sleep(downFor);
          await nats.start();
        });
      },
    });
    await restart;
    await publishing;
    expect(run.code, run.stderr).toBe(0);
    await expectRawAndAggregateExact(url, rows, 'chaos-nats');
  });
});

/**
 * Publishes ids 1..rows (500 every 50 ms), each with its id as the JetStream message id, so that
 * a publish retried across the server's restart is stored once.
 */
async function publishDeduplicated(stream: TestStream, rows: number): Promise<void> {
  const client = stream.connection.jetstream();
  const encoder = new TextEncoder();
  for (let first = 1; first <= rows; first += 500) {
    const ids = Array.from({ length: Math.min(500, rows - first + 1) }, (_, i) => first + i);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await Promise.all(ids.map((id) => client.publish(`${stream.name}.events`, encoder.encode(JSON.stringify({ id, k: id % 50, v: (id * 7919) % 1001 })), { msgID: String(id) })));
        break;
      } catch (error) {
        // The server is away: publish the batch again (the message ids make it idempotent), for a minute at most.
        if (Date.now() > deadline) throw error;
        await sleep(200);
      }
    }
    await sleep(50);
  }
}

/** Runs `weir <args>` in `cwd` while `act` runs beside it (it may kill the process with SIGKILL). */
function weirProcess(args: readonly string[], cwd: string, act: (kill: () => void, alive: () => boolean) => Promise<void>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEIR, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timeout = setTimeout(() => child.kill('SIGKILL'), 150_000);
    let alive = true;
    const acting = act(
      () => child.kill('SIGKILL'),
      () => alive,
    ).catch(reject);
    child.on('error', reject);
    child.on('close', (code) => {
      alive = false;
      clearTimeout(timeout);
      void acting.then(() => resolve({ code, stderr }));
    });
  });
}
