/**
 * Recovery after SIGKILL: a GROUP BY count/sum over an unbounded datagen source builds keyed state
 * of `keys` keys, taking EXACTLY_ONCE checkpoints; once a checkpoint holding (nearly) all of them
 * completed, the process kills itself with SIGKILL. A new process then starts the same job, which
 * resumes from that checkpoint; the measurement is the time from creating its engine to the
 * aggregation processing records again (its state restored, its source rewound), the time Flink
 * reports as recovery. The checkpoint's bytes are reported beside it.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../src/engine/engine.js';
import type { JobHandle } from '../src/engine/job-handle.js';
import { checkpointSettings } from './bench-job.js';
import { runInChild, type ChildOptions } from './child-process-runner.js';

/** `--only recovery` runs just this benchmark. */
export const RECOVERY_BENCH = 'recovery';

/** One process of the benchmark: `load` builds the state and kills itself, `restart` resumes and measures. */
export interface RecoverySpec {
  readonly kind: 'recovery';
  readonly phase: 'load' | 'restart';
  readonly keys: number;
  /** The checkpoint folder both processes share. */
  readonly dir: string;
}

/** What the restarted process measured. */
export interface RecoveryRun {
  readonly keys: number;
  /** Keyed state entries the restored aggregation holds. */
  readonly restoredEntries: number;
  /** Bytes of the checkpoint the job resumed from (every file of its folder and of those it references). */
  readonly checkpointBytes: number;
  /** From creating the engine to the aggregation processing records again. */
  readonly restartToProcessingMs: number;
  readonly peakRssMb: number;
}

const SQL_SETUP = (keys: number): string => `
  CREATE TABLE src (k INT, v BIGINT) WITH (
    'connector' = 'datagen', 'rows-per-second' = '1000000000',
    'fields.k.min' = '0', 'fields.k.max' = '${keys - 1}', 'fields.v.min' = '0', 'fields.v.max' = '1000');
  CREATE TABLE sink (k INT, cnt BIGINT, total BIGINT) WITH ('connector' = 'blackhole');`;
const INSERT = 'INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k';

async function startJob(engine: Engine, spec: RecoverySpec): Promise<JobHandle> {
  await engine.execute(`${checkpointSettings(spec.dir, '2 s')} ${SQL_SETUP(spec.keys)}`);
  const [result] = await engine.execute(INSERT);
  if (result?.kind !== 'job') throw new Error('the INSERT started no job');
  return result.job;
}

const aggregation = (job: JobHandle) => job.metrics().find((m) => m.kind === 'group-aggregate');

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one phase in this process; `load` never returns (it kills itself once the state is checkpointed). */
export async function runRecoveryChild(spec: RecoverySpec): Promise<RecoveryRun> {
  const engine = createEngine({ onWarning: () => {} });
  if (spec.phase === 'load') {
    const job = await startJob(engine, spec);
    let enoughAfter: number | undefined;
    for (;;) {
      await sleep(100);
      if (job.status !== 'RUNNING') throw new Error(`the loading job ended ${job.status}: ${String(job.error)}`);
      const entries = aggregation(job)?.stateEntries ?? 0;
      const checkpoint = job.checkpointStats().completed;
      if (enoughAfter === undefined && entries >= spec.keys * 0.9) enoughAfter = checkpoint;
      if (enoughAfter !== undefined && checkpoint > enoughAfter) process.kill(process.pid, 'SIGKILL');
    }
  }
  const started = performance.now();
  const job = await startJob(engine, spec);
  for (;;) {
    const metrics = aggregation(job);
    if (metrics !== undefined && metrics.recordsIn > 0) {
      const restartToProcessingMs = performance.now() - started;
      const result: RecoveryRun = {
        keys: spec.keys,
        restoredEntries: metrics.stateEntries,
        checkpointBytes: folderBytes(spec.dir),
        restartToProcessingMs: Math.round(restartToProcessingMs),
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      };
      await job.cancel();
      return result;
    }
    if (job.status !== 'RUNNING' && job.status !== 'CREATED') throw new Error(`the restarted job ended ${job.status}: ${String(job.error)}`);
    await sleep(5);
  }
}

function folderBytes(path: string): number {
  if (!existsSync(path)) return 0;
  return readdirSync(path, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? folderBytes(join(path, e.name)) : statSync(join(path, e.name)).size), 0);
}

/** Loads, kills and restarts for every size; one pair of processes per size. */
export async function runRecoveryBench(options: ChildOptions & { readonly quick: boolean; readonly log: (line: string) => void }): Promise<RecoveryRun[]> {
  const runs: RecoveryRun[] = [];
  for (const keys of options.quick ? [1_000_000] : [1_000_000, 10_000_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'weir-bench-recovery-'));
    try {
      options.log(`recovery after SIGKILL: GROUP BY with ${keys.toLocaleString('en-US')} keys of state`);
      await runInChild({ kind: 'recovery', phase: 'load', keys, dir }, { ...options, killsItself: true });
      if (!existsSync(dir) || readdirSync(dir).length === 0) throw new Error('the loading process left no checkpoint');
      const run = (await runInChild({ kind: 'recovery', phase: 'restart', keys, dir }, options)) as RecoveryRun;
      options.log(`  processing again ${run.restartToProcessingMs} ms after the restart (${run.restoredEntries.toLocaleString('en-US')} state entries restored)`);
      runs.push(run);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return runs;
}

/** The markdown of the section. */
export function recoveryMarkdown(runs: readonly RecoveryRun[]): string[] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  return [
    '',
    '### Recovery after SIGKILL (GROUP BY count/sum, EXACTLY_ONCE checkpoints every 2 s; the process kills itself once a checkpoint holds the state, a new process resumes the job)',
    '',
    '| keys | state entries restored | checkpoint folder bytes | restart → processing again | peak RSS of the restart |',
    '|---:|---:|---:|---:|---:|',
    ...runs.map((r) => `| ${fmt(r.keys)} | ${fmt(r.restoredEntries)} | ${(r.checkpointBytes / 2 ** 20).toFixed(1)} MiB | ${fmt(r.restartToProcessingMs)} ms | ${fmt(r.peakRssMb)} MiB |`),
  ];
}
