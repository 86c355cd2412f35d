/**
 * `npm run bench`: the Nexmark queries by weir and its references, the keyed-state size, the
 * in-process GROUP BY and checkpoint-overhead benchmarks and the PostgreSQL sink benchmark; writes
 * bench/results/latest.json and latest.md. `-- --quick` runs 1M events, `-- --micro` the
 * per-operator micro-benchmarks, `-- --only pg-sink` only the PostgreSQL sink; see
 * bench-options.ts for the rest. Started with `--child <spec>`, it runs one measurement instead.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StateSizeMeasurement } from './bench-measurement.js';
import { parseBenchOptions } from './bench-options.js';
import { DSS_BENCH, runDssBench } from './dss-bench.js';
import type { CheckpointRun } from './checkpoint-bench.js';
import { CHILD_FLAG, pinsCores, runInChild, type ChildOptions } from './child-process-runner.js';
import { generateRows, runHandwritten, runWeirGroupBy, runWeirSourceOnly } from './group-by-bench.js';
import { runChildSpec } from './measurement-child.js';
import { runNexmarkBench } from './nexmark-bench.js';
import { nexmarkQueries } from './nexmark-query-catalog.js';
import { runOperatorMicroBench } from './operator-micro-bench.js';
import { PG_SINK_BENCH, runPgSinkBench } from './pg-sink-bench.js';
import { carryOver, readReport, writeReport, type BenchReport } from './results-report.js';
import { RECOVERY_BENCH, runRecoveryBench } from './recovery-bench.js';
import { runStateScaleBench, STATE_SCALE_BENCH } from './state-scale-bench.js';
import { runViewDdlBench, VIEW_DDL_BENCH } from './view-ddl-bench.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'bench', 'results');
const log = (line: string): void => void process.stderr.write(line + '\n');

/** The run with the median throughput (runs alternate, so drift affects both sides alike). */
function median(runs: readonly CheckpointRun[]): CheckpointRun {
  return [...runs].sort((a, b) => a.rowsPerSecond - b.rowsPerSecond)[Math.floor(runs.length / 2)]!;
}

/** `--only checkpoint` runs just the checkpoint-overhead benchmark. */
const CHECKPOINT_BENCH = 'checkpoint';

/**
 * Pairs of runs without and with checkpoints, each in its own pinned process, the order within a
 * pair alternating; run-to-run noise on a shared machine is of the order of the goal (±10%).
 */
const CHECKPOINT_PAIRS = 9;

async function groupByBench(rows: number): Promise<NonNullable<BenchReport['groupBy']>> {
  log(`GROUP BY count/sum over 10K keys, ${rows} rows, in-process`);
  let batches: unknown[][][] | undefined = await generateRows(rows);
  runHandwritten(batches); // warm-up
  const handwritten = runHandwritten(batches);
  batches = undefined; // let the collector reclaim the pre-generated rows before weir runs
  await runWeirGroupBy(Math.min(rows, 500_000)); // warm-up
  const weir = await runWeirGroupBy(rows);
  const source = await runWeirSourceOnly(rows);
  return { rows, measurements: [handwritten, weir, source] };
}

async function checkpointBench(rows: number, options: ChildOptions): Promise<NonNullable<BenchReport['checkpointOverhead']>> {
  log(`checkpoint overhead: GROUP BY over 100K keys, ${rows} rows, 1 s EXACTLY_ONCE checkpoints vs none, ${CHECKPOINT_PAIRS} pairs of runs`);
  const plainRuns: CheckpointRun[] = [];
  const checkpointedRuns: CheckpointRun[] = [];
  for (let i = 0; i < CHECKPOINT_PAIRS; i++) {
    for (const checkpointing of i % 2 === 0 ? [false, true] : [true, false]) {
      const run = (await runInChild({ kind: 'checkpoint', rows, checkpointing }, options)) as CheckpointRun;
      (checkpointing ? checkpointedRuns : plainRuns).push(run);
      log(`  ${checkpointing ? 'with checkpoints' : 'without'}: ${Math.round(run.rowsPerSecond)} rows/s`);
    }
  }
  return {
    rows,
    plain: median(plainRuns),
    checkpointed: median(checkpointedRuns),
    samples: { plain: plainRuns.map((r) => Math.round(r.rowsPerSecond)), checkpointed: checkpointedRuns.map((r) => Math.round(r.rowsPerSecond)) },
    syncShares: checkpointedRuns.map((r) => (r.syncMs ?? 0) / 1000 / (r.seconds ?? Infinity)),
  };
}

async function main(): Promise<void> {
  const child = process.argv.indexOf(CHILD_FLAG);
  if (child >= 0) {
    process.stdout.write(JSON.stringify(await runChildSpec(JSON.parse(process.argv[child + 1]!))) + '\n');
    return;
  }
  const options = parseBenchOptions(process.argv.slice(2));
  if (options.micro) {
    await runOperatorMicroBench(log, options.only);
    return;
  }
  const childOptions = { core: options.core, timeoutMs: options.timeoutSeconds * 1000, ...(options.profileDir === undefined ? {} : { profileDir: options.profileDir }) };
  const workload = { events: options.events, tps: options.tps };
  const wants = (name: string): boolean => options.only === undefined || options.only.includes(name);
  let results: BenchReport['results'] = [];
  if (nexmarkQueries().some((q) => wants(q.name))) {
    log(`Nexmark: ${options.events} events, first-event.rate ${options.tps}, ${options.runs} run(s) each, one process per measurement${pinsCores() ? `, pinned to core ${options.core}` : ''}`);
    results = await runNexmarkBench({ ...childOptions, workload, runs: options.runs, ...(options.only === undefined ? {} : { only: options.only }), log });
  }
  let report: BenchReport = { workload: { ...workload, runs: options.runs, pinnedCore: pinsCores() ? options.core : null }, results };
  if (options.only === undefined) {
    const keys = 1_000_000;
    log(`keyed state of a GROUP BY count/sum over ${keys} keys`);
    const stateSize = (await runInChild({ kind: 'state-size', keys }, childOptions)) as StateSizeMeasurement;
    log(`  ${stateSize.heapBytesPerKey.toFixed(0)} heap bytes/key, ${stateSize.checkpointBytesPerKey.toFixed(0)} checkpoint bytes/key`);
    report = { ...report, stateSize, groupBy: await groupByBench(options.quick ? 1_000_000 : 4_000_000) };
  }
  if (options.only === undefined || options.only.includes(CHECKPOINT_BENCH)) {
    report = { ...report, checkpointOverhead: await checkpointBench(options.quick ? 6_000_000 : 16_000_000, childOptions) };
  }
  if (wants(STATE_SCALE_BENCH)) {
    report = { ...report, stateScale: await runStateScaleBench({ ...childOptions, quick: options.quick, backends: options.stateBackends, ...(options.stateScaleSizes === undefined ? {} : { sizes: options.stateScaleSizes }), log }) };
  }
  if (wants(RECOVERY_BENCH)) {
    report = { ...report, recovery: await runRecoveryBench({ ...childOptions, quick: options.quick, log }) };
  }
  if (wants(PG_SINK_BENCH)) {
    log(`PostgreSQL sink: ${options.pgRows} rows per run, ${options.runs} run(s) per case, 1 s EXACTLY_ONCE checkpoints`);
    report = { ...report, postgresSink: await runPgSinkBench({ ...childOptions, runs: options.runs, rows: options.pgRows, keys: 100_000, log }) };
  }
  if (wants(VIEW_DDL_BENCH)) {
    log('materialized views: CREATE and DROP of one more beside 1 to 50 running views');
    report = { ...report, viewDdl: await runViewDdlBench({ rows: options.quick ? 20_000 : 200_000, repeats: options.quick ? 3 : 7, log }) };
  }
  if (wants(DSS_BENCH)) {
    log('decision-support workload: rows changed per second with every materialized view maintained');
    const sizes = options.quick
      ? { customers: 300, suppliers: 40, orders: 2_000, rounds: 6, changesPerRound: 40 }
      : { customers: 1_000, suppliers: 120, orders: 6_000, rounds: 10, changesPerRound: 100 };
    report = { ...report, dss: await runDssBench({ sizes, log }) };
  }
  if (options.only !== undefined) report = carryOver(readReport(RESULTS), report);
  writeReport(RESULTS, report);
  log(`wrote ${join(RESULTS, 'latest.json')} and latest.md`);
}

await main();
