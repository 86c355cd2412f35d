/**
 * State at scale: a GROUP BY count/sum over millions of distinct keys, run without checkpoints and
 * with EXACTLY_ONCE checkpoints every second, each run in its own pinned process. Reports the
 * throughput of both, and per checkpoint the synchronous pause (processing stopped: the subtasks
 * share one thread, so a checkpoint's pause is the sum of its subtasks' synchronous parts) as
 * p50/p99/max over the run's checkpoints, and the bytes each checkpoint wrote. This is where a
 * checkpoint that copies all state shows: its pause and size follow the state, not the change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine/engine.js';
import { checkpointSettings, sourceDdl, timeJob } from './bench-job.js';
import { runInChild, type ChildOptions } from './child-process-runner.js';

/** `--only state-scale` runs just this benchmark. */
export const STATE_SCALE_BENCH = 'state-scale';

/** One run: `rows` rows over `keys` keys (uniformly random), with or without checkpoints. */
export interface StateScaleSpec {
  readonly kind: 'state-scale';
  readonly keys: number;
  readonly rows: number;
  readonly checkpointing: boolean;
}

/** What one run measured. */
export interface StateScaleRun {
  readonly keys: number;
  readonly rows: number;
  readonly checkpointing: boolean;
  readonly rowsPerSecond: number;
  readonly seconds: number;
  /** Checkpoints completed (the final one of the bounded job included). */
  readonly checkpoints: number;
  /** Per completed checkpoint, in order: milliseconds processing stopped for its synchronous parts. */
  readonly pausesMs: readonly number[];
  /** Per completed checkpoint, in order: bytes it wrote. */
  readonly checkpointBytes: readonly number[];
  /** Per completed checkpoint, in order: from trigger to completion, in milliseconds. */
  readonly durationsMs: readonly number[];
  readonly peakRssMb: number;
}

/** Runs one {@link StateScaleSpec} in this process. */
export async function runStateScaleChild(spec: StateScaleSpec): Promise<StateScaleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-scale-'));
  try {
    const engine = createEngine({ onWarning: () => {} });
    await engine.execute(`
      ${spec.checkpointing ? checkpointSettings(dir, '1 s') : ''}
      ${sourceDdl(spec.rows, spec.keys)};
      CREATE TABLE sink (k INT, cnt BIGINT, total BIGINT) WITH ('connector' = 'blackhole');`);
    const { job, seconds } = await timeJob(engine, 'INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k');
    const completed = job.checkpointHistory().filter((c) => c.status === 'COMPLETED');
    return {
      keys: spec.keys,
      rows: spec.rows,
      checkpointing: spec.checkpointing,
      rowsPerSecond: spec.rows / seconds,
      seconds,
      checkpoints: completed.length,
      pausesMs: completed.map((c) => round1(c.syncMs ?? 0)),
      checkpointBytes: completed.map((c) => c.sizeBytes ?? 0),
      durationsMs: completed.map((c) => Math.round(c.durationMs ?? 0)),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The benchmark's section of the results: one pair of runs per size. */
export interface StateScaleSection {
  readonly cases: readonly { readonly plain: StateScaleRun; readonly checkpointed: StateScaleRun }[];
}

/** Runs a pair (without, then with checkpoints) for every size, each run in a child process. */
export async function runStateScaleBench(options: ChildOptions & { readonly quick: boolean; readonly log: (line: string) => void }): Promise<StateScaleSection> {
  const sizes = options.quick ? [{ keys: 1_000_000, rows: 4_000_000 }] : [{ keys: 1_000_000, rows: 4_000_000 }, { keys: 5_000_000, rows: 20_000_000 }];
  const cases: { plain: StateScaleRun; checkpointed: StateScaleRun }[] = [];
  for (const { keys, rows } of sizes) {
    options.log(`state at scale: GROUP BY over ${keys.toLocaleString('en-US')} keys, ${rows.toLocaleString('en-US')} rows, without and with 1 s checkpoints`);
    const run = async (checkpointing: boolean): Promise<StateScaleRun> => {
      const result = (await runInChild({ kind: 'state-scale', keys, rows, checkpointing }, options)) as StateScaleRun;
      options.log(`  ${checkpointing ? 'with checkpoints' : 'without'}: ${Math.round(result.rowsPerSecond).toLocaleString('en-US')} rows/s${checkpointing ? `, ${result.checkpoints} checkpoints, pause p99 ${percentile(result.pausesMs, 0.99).toFixed(1)} ms` : ''}`);
      return result;
    };
    const plain = await run(false);
    const checkpointed = await run(true);
    cases.push({ plain, checkpointed });
  }
  return { cases };
}

/** The markdown of the section. */
export function stateScaleMarkdown(section: StateScaleSection): string[] {
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return [
    '',
    '### State at scale (GROUP BY count/sum over many keys, EXACTLY_ONCE checkpoints every 1 s to local files, one run each in its own pinned process)',
    '',
    'The pause is how long processing stopped for a checkpoint\'s synchronous parts; p50/p99/max are over the run\'s checkpoints (the final one included).',
    '',
    '| keys | rows | rows/s without | rows/s with | with / without | checkpoints | pause p50 / p99 / max | bytes per checkpoint (median / max) | peak RSS with |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...section.cases.map(({ plain, checkpointed: c }) =>
      `| ${fmt(c.keys)} | ${fmt(c.rows)} | ${fmt(plain.rowsPerSecond)} | ${fmt(c.rowsPerSecond)} | ${(c.rowsPerSecond / plain.rowsPerSecond).toFixed(2)} | ${c.checkpoints} | ` +
        `${percentile(c.pausesMs, 0.5).toFixed(1)} / ${percentile(c.pausesMs, 0.99).toFixed(1)} / ${percentile(c.pausesMs, 1).toFixed(1)} ms | ` +
        `${mib(percentile(c.checkpointBytes, 0.5))} / ${mib(percentile(c.checkpointBytes, 1))} | ${fmt(c.peakRssMb)} MiB |`,
    ),
  ];
}

/** The nearest-rank percentile `p` (0–1] of `values`; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
