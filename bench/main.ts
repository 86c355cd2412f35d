/**
 * `npm run bench`: runs the benchmarks, prints the rates and writes bench/results/latest.json and
 * latest.md. `npm run bench -- --quick` uses fewer rows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

async function main(): Promise<void> {
  process.stderr.write(`GROUP BY count/sum over 10K keys, ${rows} rows${quick ? ' (--quick)' : ''}\n`);
  const batches = await generateRows(rows);
  runHandwritten(batches); // warm-up
  const handwritten = runHandwritten(batches);
  await runWeirGroupBy(Math.min(rows, 500_000)); // warm-up
  const weir = await runWeirGroupBy(rows);
  const source = await runWeirSourceOnly(rows);
  const ratio = weir.rowsPerSecond / handwritten.rowsPerSecond;
  for (const m of [handwritten, weir, source]) process.stdout.write(format(m) + '\n');
  process.stdout.write(`weir / hand-written: ${ratio.toFixed(2)} (goal ≥ 0.33)\n`);

  const results = {
    machine: machine(),
    date: new Date().toISOString(),
    benchmark: 'datagen → GROUP BY k COUNT(*), SUM(v) over 10K keys → blackhole',
    results: [handwritten, weir, source].map((m) => ({ engine: m.name, rows: m.rows, rowsPerSecond: Math.round(m.rowsPerSecond), seconds: Number(m.seconds.toFixed(3)), changes: m.changes })),
    ratioWeirToHandwritten: Number(ratio.toFixed(3)),
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
  ].join('\n');
  writeFileSync(join(RESULTS, 'latest.md'), table + '\n');
}

await main();
