/**
 * State at scale: a GROUP BY count/sum over millions of distinct keys, run without checkpoints and
 * with EXACTLY_ONCE checkpoints every second, each run in its own pinned process. Reports the
 * throughput of both, and per checkpoint the synchronous pause (processing stopped: the subtasks
 * share one thread, so a checkpoint's pause is the sum of its subtasks' synchronous parts) as
 * p50/p99/max over the run's checkpoints, and the bytes each checkpoint wrote. This is where a
 * checkpoint that copies all state shows: its pause and size follow the state, not the change.
 * With `--state-backend rocksdb` (or `hashmap,rocksdb`) the runs use the disk backend (LMDB) too,
 * and report its peak bytes on disk per key beside the peak heap used (both sampled every 250 ms).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine/engine.js';
import { checkpointSettings, sourceDdl, timeJob } from './bench-job.js';
import type { StateScaleBackend } from './bench-options.js';
import { runInChild, type ChildOptions } from './child-process-runner.js';

/** `--only state-scale` runs just this benchmark. */
export const STATE_SCALE_BENCH = 'state-scale';

/** One run: `rows` rows over `keys` keys (uniformly random, or each key once in order: `sequence`), with or without checkpoints. */
export interface StateScaleSpec {
  readonly kind: 'state-scale';
  readonly keys: number;
  readonly rows: number;
  /** Each key once, in order (rows = keys): every row creates a key. */
  readonly sequence?: boolean;
  readonly checkpointing: boolean;
  /** `state.backend.type`; `hashmap` when absent (results written before the option). */
  readonly backend?: StateScaleBackend;
}

/** What one run measured. */
export interface StateScaleRun {
  readonly keys: number;
  readonly rows: number;
  readonly sequence?: boolean;
  readonly checkpointing: boolean;
  readonly backend?: StateScaleBackend;
  /** The largest heap used seen (sampled every 250 ms). */
  readonly peakHeapUsedMb?: number;
  /** The disk backend's largest allocated bytes on disk seen (sampled every 250 ms), per key. */
  readonly diskBytesPerKey?: number;
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
  const backend = spec.backend ?? 'hashmap';
  const localDir = join(dir, 'local');
  mkdirSync(localDir);
  let peakHeap = 0;
  let peakDisk = 0;
  const sample = (): void => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    if (backend === 'rocksdb') peakDisk = Math.max(peakDisk, allocatedBytes(localDir));
  };
  const sampler = setInterval(sample, 250);
  try {
    const engine = createEngine({ onWarning: () => {} });
    await engine.execute(`
      ${spec.checkpointing ? checkpointSettings(dir, '1 s') : ''}
      SET 'state.backend.type' = '${backend}'; SET 'state.backend.rocksdb.localdir' = '${localDir}';
      ${spec.sequence === true ? sequenceSourceDdl(spec.keys) : sourceDdl(spec.rows, spec.keys)};
      CREATE TABLE sink (k INT, cnt BIGINT, total BIGINT) WITH ('connector' = 'blackhole');`);
    const { job, seconds } = await timeJob(engine, 'INSERT INTO sink SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k');
    clearInterval(sampler);
    const completed = job.checkpointHistory().filter((c) => c.status === 'COMPLETED');
    return {
      keys: spec.keys,
      rows: spec.rows,
      ...(spec.sequence === true ? { sequence: true } : {}),
      checkpointing: spec.checkpointing,
      backend,
      peakHeapUsedMb: Math.round(peakHeap / 2 ** 20),
      ...(backend === 'rocksdb' ? { diskBytesPerKey: Math.round(peakDisk / spec.keys) } : {}),
      rowsPerSecond: spec.rows / seconds,
      seconds,
      checkpoints: completed.length,
      pausesMs: completed.map((c) => round1(c.syncMs ?? 0)),
      checkpointBytes: completed.map((c) => c.sizeBytes ?? 0),
      durationsMs: completed.map((c) => Math.round(c.durationMs ?? 0)),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The source of a run that reads each of `keys` keys once, in order. */
function sequenceSourceDdl(keys: number): string {
  return `CREATE TABLE src (k INT, v BIGINT) WITH (
    'connector' = 'datagen', 'rows-per-second' = '1000000000',
    'fields.k.kind' = 'sequence', 'fields.k.start' = '0', 'fields.k.end' = '${keys - 1}', 'fields.v.min' = '0', 'fields.v.max' = '1000')`;
}

/** Bytes allocated on disk by the files under `dir` (the disk backend's environments). */
function allocatedBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    try {
      bytes += statSync(join(entry.parentPath, entry.name)).blocks * 512;
    } catch (error) {
      // A job that ends removes its directory while this samples it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return bytes;
}

/** The benchmark's section of the results: one pair of runs per size. */
export interface StateScaleSection {
  readonly cases: readonly { readonly plain: StateScaleRun; readonly checkpointed: StateScaleRun }[];
}

/** Runs a pair (without, then with checkpoints) for every size, each run in a child process. */
export async function runStateScaleBench(
  options: ChildOptions & {
    readonly quick: boolean;
    readonly backends?: readonly StateScaleBackend[];
    readonly sizes?: readonly { readonly keys: number; readonly rows: number; readonly sequence?: boolean }[];
    readonly log: (line: string) => void;
  },
): Promise<StateScaleSection> {
  const sizes = options.sizes ?? (options.quick ? [{ keys: 1_000_000, rows: 4_000_000 }] : [{ keys: 1_000_000, rows: 4_000_000 }, { keys: 5_000_000, rows: 20_000_000 }]);
  const cases: { plain: StateScaleRun; checkpointed: StateScaleRun }[] = [];
  for (const backend of options.backends ?? ['hashmap']) {
    for (const { keys, rows, sequence = false } of sizes) {
      options.log(`state at scale (${backend}): GROUP BY over ${keys.toLocaleString('en-US')} keys, ${sequence ? 'each key once' : `${rows.toLocaleString('en-US')} rows`}, without and with 1 s checkpoints`);
      const run = async (checkpointing: boolean): Promise<StateScaleRun> => {
        const result = (await runInChild({ kind: 'state-scale', keys, rows, checkpointing, backend, ...(sequence ? { sequence } : {}) }, options)) as StateScaleRun;
        const disk = result.diskBytesPerKey === undefined ? '' : `, ${result.diskBytesPerKey} disk bytes/key`;
        options.log(
          `  ${checkpointing ? 'with checkpoints' : 'without'}: ${Math.round(result.rowsPerSecond).toLocaleString('en-US')} rows/s${checkpointing ? `, ${result.checkpoints} checkpoints, pause p99 ${percentile(result.pausesMs, 0.99).toFixed(1)} ms` : ''}, peak heap used ${result.peakHeapUsedMb} MiB${disk}`,
        );
        return result;
      };
      const plain = await run(false);
      const checkpointed = await run(true);
      cases.push({ plain, checkpointed });
    }
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
    '| backend | keys | rows | rows/s without | rows/s with | with / without | checkpoints | pause p50 / p99 / max | bytes per checkpoint (median / max) | peak RSS with | peak heap used without / with | disk bytes/key |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...section.cases.map(({ plain, checkpointed: c }) =>
      `| ${c.backend ?? 'hashmap'} | ${fmt(c.keys)} | ${fmt(c.rows)}${c.sequence === true ? ' (each key once, in order)' : ''} | ${fmt(plain.rowsPerSecond)} | ${fmt(c.rowsPerSecond)} | ${(c.rowsPerSecond / plain.rowsPerSecond).toFixed(2)} | ${c.checkpoints} | ` +
        `${percentile(c.pausesMs, 0.5).toFixed(1)} / ${percentile(c.pausesMs, 0.99).toFixed(1)} / ${percentile(c.pausesMs, 1).toFixed(1)} ms | ` +
        `${mib(percentile(c.checkpointBytes, 0.5))} / ${mib(percentile(c.checkpointBytes, 1))} | ${fmt(c.peakRssMb)} MiB | ` +
        `${plain.peakHeapUsedMb === undefined ? '–' : `${fmt(plain.peakHeapUsedMb)} / ${fmt(c.peakHeapUsedMb ?? 0)} MiB`} | ${c.diskBytesPerKey === undefined ? '–' : fmt(c.diskBytesPerKey)} |`,
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
