/**
 * The PostgreSQL sink benchmark: rows per second into PostgreSQL, statements per checkpoint and
 * commit latency of the postgres sink, exactly-once and at-least-once, upsert and append, on a
 * throwaway PostgreSQL 15 cluster started for the benchmark (fsync on, `track_commit_timestamp`
 * on, every statement logged), plus exactly-once upsert into the embedded PGlite. Each run is a
 * child process (see pg-sink-child.ts) with a database of its own; runs are interleaved across
 * cases, the median run by throughput is reported, and latencies are pooled over all runs'
 * checkpoints. Without initdb the cluster cases are skipped with the reason recorded.
 */
import { pgQuery } from '../test/support/pg-query.js';
import { startPostgresCluster, type PostgresCluster } from '../test/support/postgres-cluster.js';
import { runInChild, type ChildOptions } from './child-process-runner.js';
import type { CheckpointTiming, PgSinkCase, PgSinkRun, PgSinkSpec } from './pg-sink-measurement.js';
import { countStatements, logOffset, STATEMENT_LOG_SETTINGS, type StatementCounts } from './server-statement-log.js';

/** What to run. */
export interface PgSinkBenchOptions extends ChildOptions {
  readonly runs: number;
  /** Source rows per run. */
  readonly rows: number;
  /** Distinct keys of the upsert cases. */
  readonly keys: number;
  log(line: string): void;
}

/** Median, 90th percentile (nearest rank) and maximum of some milliseconds. */
export interface Spread {
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

/** The latencies of one case, over every checkpoint of every run (see CheckpointTiming for the instants). */
export interface CommitLatency {
  readonly checkpoints: number;
  /** Checkpoint completion (all acknowledgements) → rows visible; negative when they were visible before. */
  readonly completionToVisibleMs: Spread;
  /** Barrier at the sink → rows visible: how stale a reader's view is beyond the checkpoint interval. */
  readonly barrierToVisibleMs: Spread;
  /** Exactly-once: completion → the sink is notified (`_metadata` made durable, notification). */
  readonly completionToNotifyMs?: Spread;
  /** Exactly-once: COMMIT PREPARED, call to return, in the job's process. */
  readonly commitPreparedMs?: Spread;
  /** Exactly-once on the cluster: how much later the job saw COMMIT PREPARED return than the server's commit timestamp. */
  readonly ackAfterServerCommitMs?: Spread;
}

/** The result of one case. */
export interface PgSinkCaseResult {
  readonly case: PgSinkCase;
  readonly status: PgSinkRun['status'];
  readonly error?: string;
  /** The median run by throughput. */
  readonly median?: Omit<PgSinkRun, 'checkpoints'> & { readonly checkpoints: number; readonly rowsWrittenPerSecond?: number };
  /** Source rows/s of every run. */
  readonly samples: readonly number[];
  /** Cluster: statements of the median run's sink sessions after set-up, by role, and per checkpoint. */
  readonly statements?: StatementCounts & { readonly perCheckpoint: number };
  /** What "visible" is taken from. */
  readonly visibility: string;
  readonly latency?: CommitLatency;
}

/** The `postgresSink` section of the results. */
export interface PgSinkSection {
  readonly measuredAt: string;
  readonly rows: number;
  readonly keys: number;
  readonly runs: number;
  readonly checkpointing: string;
  /** The cluster's `version()` and settings, or why there was none. */
  readonly cluster: string;
  readonly cases: readonly PgSinkCaseResult[];
}

const CASES: readonly PgSinkCase[] = [
  { name: 'exactly-once upsert', server: 'cluster', semantic: 'exactly-once', shape: 'upsert' },
  { name: 'at-least-once upsert', server: 'cluster', semantic: 'at-least-once', shape: 'upsert' },
  { name: 'exactly-once append', server: 'cluster', semantic: 'exactly-once', shape: 'append' },
  { name: 'at-least-once append', server: 'cluster', semantic: 'at-least-once', shape: 'append' },
  { name: 'embedded (PGlite) exactly-once upsert', server: 'embedded', semantic: 'exactly-once', shape: 'upsert' },
];

const CLUSTER_SETTINGS = { fsync: 'on', track_commit_timestamp: 'on', ...STATEMENT_LOG_SETTINGS };

/** The name `--only` selects this benchmark by. */
export const PG_SINK_BENCH = 'pg-sink';

/** Median, 90th percentile and maximum of `values` (nearest rank, 0.1 ms); undefined for none. */
export function spread(values: readonly number[]): Spread | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => Number(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!.toFixed(1));
  return { median: at(0.5), p90: at(0.9), max: at(1) };
}

function latency(timings: readonly CheckpointTiming[]): CommitLatency {
  const of = (f: (t: CheckpointTiming) => number | undefined): Spread | undefined => spread(timings.map(f).filter((v): v is number => v !== undefined));
  const optional = {
    completionToNotifyMs: of((t) => (t.commitCalledAt === undefined ? undefined : t.commitCalledAt - t.completedAt)),
    commitPreparedMs: of((t) => (t.commitAckAt === undefined || t.commitCalledAt === undefined ? undefined : t.commitAckAt - t.commitCalledAt)),
    ackAfterServerCommitMs: of((t) => (t.commitAckAt === undefined || t.serverCommitAt === undefined ? undefined : t.commitAckAt - t.serverCommitAt)),
  };
  return {
    checkpoints: timings.length,
    completionToVisibleMs: of((t) => t.visibleAt - t.completedAt)!,
    barrierToVisibleMs: of((t) => t.visibleAt - t.barrierAt)!,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
  };
}

function visibility(c: PgSinkCase): string {
  if (c.semantic === 'at-least-once') return 'COMMIT returned, at the barrier (before completion)';
  return c.server === 'cluster' ? "server commit timestamp of the checkpoint's marker row" : 'COMMIT PREPARED returned (in the job process, which hosts PGlite)';
}

interface Measured {
  readonly run: PgSinkRun;
  readonly statements?: StatementCounts;
}

function failedRun(c: PgSinkCase, error: unknown): PgSinkRun {
  const status = (error as { timeout?: boolean }).timeout ? 'timeout' : 'failed';
  return { case: c.name, status, error: (error as Error).message, rows: 0, seconds: 0, rowsPerSecond: 0, sinkChangesIn: 0, rowsInTable: 0, sinkOpenedAt: 0, checkpoints: [], peakRssMb: 0 };
}

async function measureOnce(c: PgSinkCase, run: number, options: PgSinkBenchOptions, cluster: PostgresCluster | undefined): Promise<Measured> {
  const spec: PgSinkSpec = { kind: 'pg-sink', case: c, rows: options.rows, keys: options.keys };
  if (c.server === 'embedded') {
    return { run: (await runInChild(spec, options).catch((error: unknown) => failedRun(c, error))) as PgSinkRun };
  }
  const database = `bench_${c.semantic.replace(/-/g, '_')}_${c.shape}_${run}`;
  await pgQuery(cluster!.url, `CREATE DATABASE ${database}`);
  const log = `${cluster!.dataDir}/server.log`;
  const offset = logOffset(log);
  try {
    const result = (await runInChild({ ...spec, url: cluster!.urlFor(database) }, options).catch((error: unknown) => failedRun(c, error))) as PgSinkRun;
    return { run: result, statements: countStatements(log, offset, database, result.sinkOpenedAt) };
  } finally {
    await pgQuery(cluster!.url, `DROP DATABASE ${database} WITH (FORCE)`);
  }
}

function describe(run: PgSinkRun): string {
  if (run.status !== 'ok') return `${run.case.padEnd(38)} ${run.status}: ${run.error ?? ''}`;
  const visible = run.checkpoints.map((t) => t.visibleAt - t.completedAt).sort((a, b) => a - b);
  const median = visible[Math.floor((visible.length - 1) / 2)];
  return `${run.case.padEnd(38)} ${Math.round(run.rowsPerSecond).toLocaleString('en-US').padStart(9)} rows/s  ${run.checkpoints.length} checkpoints  completion→visible median ${median?.toFixed(1) ?? '–'} ms`;
}

function summarize(c: PgSinkCase, measured: readonly Measured[]): PgSinkCaseResult {
  const failed = measured.find((m) => m.run.status !== 'ok');
  const samples = measured.map((m) => Math.round(m.run.rowsPerSecond));
  if (failed !== undefined) return { case: c, status: failed.run.status, error: failed.run.error ?? '', samples, visibility: visibility(c) };
  const sorted = [...measured].sort((a, b) => a.run.rowsPerSecond - b.run.rowsPerSecond);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const { checkpoints, ...run } = middle.run;
  const s = middle.statements;
  const protocol = s === undefined ? 0 : Object.values(s).reduce((a, b) => a + b, 0);
  return {
    case: c,
    status: 'ok',
    median: { ...run, checkpoints: checkpoints.length, ...(run.rowsWritten === undefined ? {} : { rowsWrittenPerSecond: run.rowsWritten / run.seconds }) },
    samples,
    ...(s === undefined ? {} : { statements: { ...s, perCheckpoint: protocol / Math.max(1, checkpoints.length) } }),
    visibility: visibility(c),
    latency: latency(measured.flatMap((m) => m.run.checkpoints)),
  };
}

/** Runs every case `runs` times, interleaved, and returns the section for the results. */
export async function runPgSinkBench(options: PgSinkBenchOptions): Promise<PgSinkSection> {
  let cluster: PostgresCluster | undefined;
  let clusterText: string;
  try {
    cluster = await startPostgresCluster(CLUSTER_SETTINGS);
    const [row] = await pgQuery<{ version: string }>(cluster.url, 'SELECT version()');
    clusterText = `${row!.version.split(' on ')[0]}, throwaway cluster; ${Object.entries(CLUSTER_SETTINGS).filter(([k]) => !k.startsWith('log_')).map(([k, v]) => `${k}=${v}`).join(', ')}, log_statement=all`;
  } catch (error) {
    clusterText = `no cluster, its cases were skipped: ${(error as Error).message.split('\n')[0]}`;
    options.log(`  ${clusterText}`);
  }
  try {
    const cases = CASES.filter((c) => c.server === 'embedded' || cluster !== undefined);
    const measured = cases.map((): Measured[] => []);
    for (let r = 0; r < options.runs; r++) {
      for (let i = 0; i < cases.length; i++) {
        if (measured[i]!.some((m) => m.run.status !== 'ok')) continue;
        const m = await measureOnce(cases[i]!, r, options, cluster);
        options.log(describe(m.run));
        measured[i]!.push(m);
      }
    }
    return {
      measuredAt: new Date().toISOString(),
      rows: options.rows,
      keys: options.keys,
      runs: options.runs,
      checkpointing: "EXACTLY_ONCE every 1 s to local files, every checkpoint retained; parallelism 1",
      cluster: clusterText,
      cases: cases.map((c, i) => summarize(c, measured[i]!)),
    };
  } finally {
    cluster?.destroy();
  }
}
