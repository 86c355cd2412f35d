/**
 * Checkpoint overhead: the same stateful query (GROUP BY over 100K keys) with checkpointing off
 * and with EXACTLY_ONCE checkpoints every second to local storage; reports the throughput ratio,
 * how many checkpoints completed, how long the last one took and how big it was, and how long
 * processing stopped for the synchronous parts of the snapshots.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine/engine.js';
import { sourceDdl, timeJob } from './bench-job.js';

/** One run of the checkpoint benchmark. */
export interface CheckpointRun {
  readonly checkpointing: boolean;
  readonly rows: number;
  readonly rowsPerSecond: number;
  readonly checkpoints: number;
  readonly lastCheckpointMs: number | undefined;
  readonly lastCheckpointBytes: number | undefined;
  /** The run's length, and how long processing stopped for the synchronous parts of its checkpoints. */
  readonly seconds?: number;
  readonly syncMs?: number;
}

const KEYS = 100_000;

/** Runs the query once, with or without checkpoints. */
export async function runCheckpointBench(rows: number, checkpointing: boolean): Promise<CheckpointRun> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-ckpt-'));
  const engine = createEngine();
  await engine.execute(`
    ${checkpointing ? `SET 'execution.checkpointing.interval' = '1 s'; SET 'state.checkpoints.dir' = '${dir}'; SET 'pipeline.name' = 'bench';` : ''}
    ${sourceDdl(rows, KEYS)};
    CREATE TABLE sink (k INT, cnt BIGINT, total BIGINT) WITH ('connector' = 'blackhole');`);
  const { job, seconds } = await timeJob(engine, 'INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k');
  const last = job.lastCheckpoint;
  const bytes = last === undefined ? undefined : readdirSync(last.path).reduce((n, f) => n + statSync(join(last.path, f)).size, 0);
  const stats = job.checkpointStats();
  rmSync(dir, { recursive: true, force: true });
  return {
    checkpointing,
    rows,
    rowsPerSecond: rows / seconds,
    checkpoints: stats.completed,
    lastCheckpointMs: last?.durationMs,
    lastCheckpointBytes: bytes,
    seconds,
    syncMs: job.checkpointHistory().reduce((sum, c) => sum + (c.syncMs ?? 0), 0),
  };
}
