/**
 * `npm run bench`: runs the benchmarks, prints the rates and writes bench/results/latest.json and
 * latest.md. `npm run bench -- --quick` uses fewer rows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCheckpointBench, type CheckpointRun } from './checkpoint-bench.js';
import { generateRows, runHandwritten, runWeirGroupBy, runWeirSourceOnly, type Measurement } from './group-by-bench.js';

const quick = process.argv.includes('--quick');
const rows = quick ? 1_000_000 : 4_000_000;
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench', 'results');

function machine() {
  return { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30) };
}

function format(m: Measurement): string {
  return `${m.name.padEnd(26)} ${(m.rowsPerSecond / 1e6).toFixed(2).padStart(6)} M rows/s  (${m.rows} rows in ${m.seconds.toFixed(2)} s, ${m.changes} changes)`;
}

/** The run with the median throughput (runs alternate, so drift affects both sides alike). */
function median(runs: readonly CheckpointRun[]): CheckpointRun {
  return [...runs].sort((a, b) => a.rowsPerSecond - b.rowsPerSecond)[Math.floor(runs.length / 2)]!;
}

function kib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / 1024).toFixed(0)} KiB`;
}

function roundRun(run: CheckpointRun) {
  return { ...run, rowsPerSecond: Math.round(run.rowsPerSecond), lastCheckpointMs: run.lastCheckpointMs === undefined ? null : Math.round(run.lastCheckpointMs) };
}

async function main(): Promise<void> {
  process.stderr.write(`GROUP BY count/sum over 10K keys, ${rows} rows${quick ? ' (--quick)' : ''}\n`);
  let batches: unknown[][][] | undefined = await generateRows(rows);
  runHandwritten(batches); // warm-up
  const handwritten = runHandwritten(batches);
  batches = undefined; // let the collector reclaim the pre-generated rows before weir runs
  await runWeirGroupBy(Math.min(rows, 500_000)); // warm-up
  const weir = await runWeirGroupBy(rows);
  const source = await runWeirSourceOnly(rows);
  const ratio = weir.rowsPerSecond / handwritten.rowsPerSecond;
  for (const m of [handwritten, weir, source]) process.stdout.write(format(m) + '\n');
  process.stdout.write(`weir / hand-written: ${ratio.toFixed(2)} (goal ≥ 0.33)\n`);

  const checkpointRows = quick ? 6_000_000 : 16_000_000;
  process.stderr.write(`checkpoint overhead: GROUP BY over 100K keys, ${checkpointRows} rows, 1 s EXACTLY_ONCE checkpoints vs none, median of 3 alternating runs\n`);
  await runCheckpointBench(1_000_000, false); // warm-up
  const plainRuns: CheckpointRun[] = [];
  const checkpointedRuns: CheckpointRun[] = [];
  for (let i = 0; i < 3; i++) {
    plainRuns.push(await runCheckpointBench(checkpointRows, false));
    checkpointedRuns.push(await runCheckpointBench(checkpointRows, true));
  }
  const plain = median(plainRuns);
  const checkpointed = median(checkpointedRuns);
  const overhead = 1 - checkpointed.rowsPerSecond / plain.rowsPerSecond;
  process.stdout.write(
    `checkpointing off ${(plain.rowsPerSecond / 1e6).toFixed(2)} M rows/s, on ${(checkpointed.rowsPerSecond / 1e6).toFixed(2)} M rows/s: ` +
      `overhead ${(overhead * 100).toFixed(1)}% (goal ≤ 5%), ${checkpointed.checkpoints} checkpoints, last ${checkpointed.lastCheckpointMs?.toFixed(0)} ms, ${kib(checkpointed.lastCheckpointBytes)}\n`,
  );

  const results = {
    machine: machine(),
    date: new Date().toISOString(),
    benchmark: 'datagen → GROUP BY k COUNT(*), SUM(v) over 10K keys → blackhole',
    results: [handwritten, weir, source].map((m) => ({ engine: m.name, rows: m.rows, rowsPerSecond: Math.round(m.rowsPerSecond), seconds: Number(m.seconds.toFixed(3)), changes: m.changes })),
    ratioWeirToHandwritten: Number(ratio.toFixed(3)),
    checkpointing: {
      benchmark: 'datagen → GROUP BY k COUNT(*), SUM(v) over 100K keys → blackhole; EXACTLY_ONCE checkpoints every 1 s to local files',
      runs: [plain, checkpointed].map(roundRun),
      overhead: Number(overhead.toFixed(4)),
    },
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  const table = [
    `Machine: ${results.machine.cpu}, ${results.machine.cores} cores, Node ${results.machine.node}; ${rows} rows, one core.`,
    '',
    '| engine | rows/s | changes emitted |',
    '|---|---:|---:|',
    ...results.results.map((r) => `| ${r.engine} | ${r.rowsPerSecond.toLocaleString('en-US')} | ${r.changes.toLocaleString('en-US')} |`),
    '',
    `weir / hand-written = **${ratio.toFixed(2)}** (goal ≥ 0.33).`,
    '',
    `Checkpointing (GROUP BY over 100K keys, ${checkpointRows} rows, EXACTLY_ONCE every 1 s to local files): ` +
      `${Math.round(plain.rowsPerSecond).toLocaleString('en-US')} rows/s without, ${Math.round(checkpointed.rowsPerSecond).toLocaleString('en-US')} rows/s with — ` +
      `overhead **${(overhead * 100).toFixed(1)}%** (goal ≤ 5%); ${checkpointed.checkpoints} checkpoints, the last took ${checkpointed.lastCheckpointMs?.toFixed(0)} ms and holds ${kib(checkpointed.lastCheckpointBytes)}.`,
  ].join('\n');
  writeFileSync(join(RESULTS, 'latest.md'), table + '\n');
}

await main();
