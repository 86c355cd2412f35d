/**
 * Runs one PostgreSQL-sink measurement in this (child) process: a bounded datagen source through
 * a weir job with EXACTLY_ONCE checkpoints every second into the postgres connector, timed end to
 * end, with every checkpoint's steps: completion from its `_metadata`, the sink's steps from
 * {@link commitTimingConnector}, and on the cluster the server's commit timestamp of each
 * exactly-once transaction (its marker row in `weir.sink_commits`). An embedded case first moves
 * into a fresh temporary working directory, where weir keeps PGlite (`.weir/postgres`) as
 * `npm start` does, and holds a lease on it so that it outlives the job for the final queries.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireEmbeddedPostgres, defaultEmbeddedDirectory, type EmbeddedPostgresLease } from '../src/connectors/postgres/embedded-postgres.js';
import { createEngine } from '../src/engine/engine.js';
import { loadCompletedCheckpoint } from '../src/runtime/checkpoint/file-checkpoint-storage.js';
import { pgQuery } from '../test/support/pg-query.js';
import { checkpointSettings, sourceDdl, timeJob } from './bench-job.js';
import { commitTimingConnector, type SinkClock, type SinkSteps } from './commit-timing-connector.js';
import type { CheckpointTiming, PgSinkRun, PgSinkSpec } from './pg-sink-measurement.js';

const TABLE = 'bench_sink';

/** The statements that declare source and sink and the INSERT that starts the job. */
function jobSql(spec: PgSinkSpec): { ddl: string; insert: string } {
  const options = [
    `'connector' = 'postgres'`,
    ...(spec.url === undefined ? [] : [`'url' = '${spec.url}'`]),
    `'table-name' = '${TABLE}'`,
    `'sink.semantic' = '${spec.case.semantic}'`,
  ].join(', ');
  const upsert = spec.case.shape === 'upsert';
  const columns = upsert ? 'k INT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED' : 'k INT, v BIGINT';
  return {
    ddl: `${sourceDdl(spec.rows, spec.keys)}; CREATE TABLE ${TABLE} (${columns}) WITH (${options});`,
    insert: upsert ? `INSERT INTO ${TABLE} SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k` : `INSERT INTO ${TABLE} SELECT k, v FROM src`,
  };
}

/** `completedAt` of every checkpoint under `dir`, by id (all are retained). */
function completionTimes(dir: string): Promise<Map<number, number>> {
  const folders = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => /(^|\/)chk-\d+$/.test(p));
  return Promise.all(folders.map((f) => loadCompletedCheckpoint(join(dir, f)).then((c) => [c.metadata.checkpointId, c.metadata.completedAt] as const))).then(
    (entries) => new Map(entries),
  );
}

/** Server commit timestamps of the exactly-once transactions, by checkpoint id; empty when `track_commit_timestamp` is off. */
async function serverCommitTimes(url: string): Promise<Map<number, number>> {
  const [setting] = await pgQuery<{ track_commit_timestamp: string }>(url, 'SHOW track_commit_timestamp');
  if (setting?.track_commit_timestamp !== 'on') return new Map();
  const rows = await pgQuery<{ id: string; ms: string }>(url, 'SELECT checkpoint_id AS id, extract(epoch FROM pg_xact_commit_timestamp(xmin)) * 1000 AS ms FROM weir.sink_commits');
  return new Map(rows.map((r) => [Number(r.id), Number(r.ms)]));
}

/**
 * Rows the server wrote into the target table. Statistics reach `pg_stat_user_tables` when the
 * writing sessions report them (at the latest when they end, which the job's end starts), so
 * this waits until two readings agree, for at most three seconds.
 */
async function rowsWritten(url: string): Promise<number | undefined> {
  let last = -1;
  for (let i = 0; i < 15; i++) {
    const [row] = await pgQuery<{ n: string | null }>(url, `SELECT n_tup_ins + n_tup_upd + n_tup_del AS n FROM pg_stat_user_tables WHERE relname = '${TABLE}'`);
    const n = row?.n === null || row === undefined ? 0 : Number(row.n);
    if (n > 0 && n === last) return n;
    last = n;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last > 0 ? last : undefined;
}

/** At least once, `commit` has nothing to do (the rows were committed at the barrier), so only exactly-once has commit steps. */
function timings(exactlyOnce: boolean, completed: Map<number, number>, steps: Map<number, SinkSteps>, server: Map<number, number>): CheckpointTiming[] {
  const result: CheckpointTiming[] = [];
  for (const [checkpointId, step] of [...steps].sort((a, b) => a[0] - b[0])) {
    const completedAt = completed.get(checkpointId);
    if (completedAt === undefined || step.preparedAt === undefined) continue;
    const base = { checkpointId, completedAt, barrierAt: step.barrierAt, preparedAt: step.preparedAt };
    if (!exactlyOnce) {
      result.push({ ...base, visibleAt: step.preparedAt });
      continue;
    }
    if (step.commitAckAt === undefined) continue;
    const serverCommitAt = server.get(checkpointId);
    result.push({ ...base, ...withDefined({ commitCalledAt: step.commitCalledAt, commitAckAt: step.commitAckAt, serverCommitAt }), visibleAt: serverCommitAt ?? step.commitAckAt });
  }
  return result;
}

function withDefined<T extends Record<string, number | undefined>>(values: T): Partial<Record<keyof T, number>> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<Record<keyof T, number>>;
}

/** A working directory of its own for the embedded server, without any server named in the environment. */
async function startEmbedded(): Promise<{ lease: EmbeddedPostgresLease; startMs: number; cwd: string }> {
  const cwd = mkdtempSync(join(tmpdir(), 'weir-bench-pglite-'));
  process.chdir(cwd);
  for (const name of Object.keys(process.env)) if (name === 'DATABASE_URL' || name.startsWith('PG')) delete process.env[name];
  const start = performance.now();
  const lease = await acquireEmbeddedPostgres(defaultEmbeddedDirectory());
  return { lease, startMs: performance.now() - start, cwd };
}

/** Runs `spec` and returns what it measured. */
export async function runPgSinkChild(spec: PgSinkSpec): Promise<PgSinkRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'weir-bench-pg-'));
  const embedded = spec.case.server === 'embedded' ? await startEmbedded() : undefined;
  const url = spec.url ?? embedded!.lease.url;
  try {
    const clock: SinkClock = { checkpoints: new Map() };
    const engine = createEngine({ onWarning: (m) => process.stderr.write(`${m}\n`), connectors: [commitTimingConnector(clock)] });
    const { ddl, insert } = jobSql(spec);
    const checkpoints = join(scratch, 'checkpoints');
    await engine.execute(`${checkpointSettings(checkpoints, '1 s')} SET 'state.checkpoints.num-retained' = '1000000'; ${ddl}`);
    const { job, seconds } = await timeJob(engine, insert);
    const exactlyOnce = spec.case.semantic === 'exactly-once';
    const server = exactlyOnce ? await serverCommitTimes(url) : new Map<number, number>();
    const [count] = await pgQuery<{ n: string }>(url, `SELECT count(*) AS n FROM ${TABLE}`);
    const written = await rowsWritten(url);
    return {
      case: spec.case.name,
      status: 'ok',
      rows: spec.rows,
      seconds,
      rowsPerSecond: spec.rows / seconds,
      sinkChangesIn: job.metrics().find((m) => m.node.endsWith('-sink'))?.recordsIn ?? 0,
      ...(written === undefined ? {} : { rowsWritten: written }),
      rowsInTable: Number(count!.n),
      sinkOpenedAt: clock.openedAt ?? 0,
      checkpoints: timings(exactlyOnce, await completionTimes(checkpoints), clock.checkpoints, server),
      ...(embedded === undefined ? {} : { embeddedStartMs: embedded.startMs }),
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    await embedded?.lease.release();
    rmSync(scratch, { recursive: true, force: true });
    if (embedded !== undefined) rmSync(embedded.cwd, { recursive: true, force: true });
  }
}
