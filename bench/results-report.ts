/**
 * Writes the benchmark's results: `bench/results/latest.json` (every measurement) and
 * `latest.md` (the machine, the Nexmark table with weir/hand-written and weir/d2mini ratios and
 * Flink's published per-core figures beside them, the goals, the GROUP BY and checkpoint
 * benchmarks, the PostgreSQL sink, the pause of materialized views under CREATE/DROP and the decision-support workload). A partial run (`--only`) keeps the sections it did not
 * measure from the previous latest.json.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { NexmarkMeasurement, StateSizeMeasurement } from './bench-measurement.js';
import type { CheckpointRun } from './checkpoint-bench.js';
import { FLINK_PER_CORE } from './flink-published-figures.js';
import type { Measurement } from './group-by-bench.js';
import type { NexmarkWorkload } from './nexmark-query-catalog.js';
import type { PgSinkSection } from './pg-sink-bench.js';
import { pgSinkMarkdown } from './pg-sink-report.js';
import { dssMarkdown, type DssSection } from './dss-bench.js';
import { recoveryMarkdown, type RecoveryRun } from './recovery-bench.js';
import { stateScaleMarkdown, type StateScaleSection } from './state-scale-bench.js';
import { viewDdlMarkdown, type ViewDdlSection } from './view-ddl-bench.js';

/** Everything one `npm run bench` measured. */
export interface BenchReport {
  readonly workload: NexmarkWorkload & { readonly runs: number; readonly pinnedCore: number | null };
  readonly results: readonly NexmarkMeasurement[];
  readonly stateSize?: StateSizeMeasurement;
  readonly groupBy?: { readonly rows: number; readonly measurements: readonly Measurement[] };
  readonly checkpointOverhead?: {
    readonly rows: number;
    readonly plain: CheckpointRun;
    readonly checkpointed: CheckpointRun;
    /** rows/s of every run, pair by pair (the two runs of a pair ran one after the other). */
    readonly samples?: { readonly plain: readonly number[]; readonly checkpointed: readonly number[] };
    /** Per checkpointed run: the share of its time processing stopped for synchronous snapshots. */
    readonly syncShares?: readonly number[];
  };
  /** Checkpoints of millions of keys: throughput, synchronous pauses and sizes. */
  readonly stateScale?: StateScaleSection;
  /** Time from a restart after SIGKILL to processing again, by size of state. */
  readonly recovery?: readonly RecoveryRun[];
  readonly postgresSink?: PgSinkSection;
  /** The pause of running materialized views while one more is created or dropped. */
  readonly viewDdl?: ViewDdlSection;
  /** Rows changed per second through weir's decision-support workload, every view maintained. */
  readonly dss?: DssSection;
}

/** The machine the numbers come from. */
export function machine() {
  return { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30), platform: `${process.platform} ${process.arch}` };
}

/** The issue's goals: ratios weir must reach. */
const GOALS = { flink: 2, d2mini: 3, handwrittenStateless: 1 / 3, handwrittenStateful: 1 / 4, bytesPerKey: 200 } as const;
const STATELESS = new Set(['q0', 'q1', 'q2']);

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ratio = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const showRatio = (r: number | undefined, goal?: number): string => (r === undefined ? '–' : `${r.toFixed(2)}${goal === undefined ? '' : r >= goal ? ' ✓' : ' ✗'}`);

function find(results: readonly NexmarkMeasurement[], query: string, engine: string, checkpointing = false, replayed = false): NexmarkMeasurement | undefined {
  return results.find((m) => m.query === query && m.engine === engine && m.checkpointing === checkpointing && (m.replayed === true) === replayed);
}

const rate = (m: NexmarkMeasurement | undefined): number | undefined => (m?.status === 'ok' ? m.eventsPerSecond : undefined);

function nexmarkTable(results: readonly NexmarkMeasurement[]): string[] {
  const order = (q: string): number => (/^q\d+$/.test(q) ? Number(q.slice(1)) : Number.MAX_SAFE_INTEGER);
  const queries = [...new Set(results.map((m) => m.query))].sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  const lines = [
    '| query | weir ev/s | weir ev/s, checkpoints | peak RSS MB (off / on) | state at end | weir ev/s w/o generator ¹ | hand-written ev/s | weir / hand | d2mini ev/s | weir / d2mini | Flink V1 /core | Flink V2 /core | weir / Flink V2 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const q of queries) {
    const off = find(results, q, 'weir');
    const on = find(results, q, 'weir', true);
    if (off !== undefined && off.status !== 'ok') {
      lines.push(`| ${q} | ${off.status}: ${(off.error ?? '').replace(/\|/g, '\\|').slice(0, 140)} | | | | | | | | | ${FLINK_PER_CORE[q] ? fmt(FLINK_PER_CORE[q].v1) : '–'} | ${FLINK_PER_CORE[q] ? fmt(FLINK_PER_CORE[q].v2) : '–'} | |`);
      continue;
    }
    const hand = find(results, q, 'handwritten');
    const d2 = find(results, q, 'd2mini');
    const flink = FLINK_PER_CORE[q];
    const replay = find(results, q, 'weir', false, true);
    // Over events generated ahead, as the references read them; else the generating run with the time inside its polls taken out.
    const processing = replay?.status === 'ok' ? (replay.processingEventsPerSecond ?? replay.eventsPerSecond) : off?.status === 'ok' ? off.processingEventsPerSecond : undefined;
    const handGoal = STATELESS.has(q) ? GOALS.handwrittenStateless : GOALS.handwrittenStateful;
    lines.push(
      [
        q,
        rate(off) === undefined ? '–' : fmt(rate(off)!),
        rate(on) === undefined ? (on?.status ?? '–') : fmt(rate(on)!),
        `${off?.peakRssMb.toFixed(0) ?? '–'} / ${on?.status === 'ok' ? on.peakRssMb.toFixed(0) : '–'}`,
        on?.stateBytes === undefined ? '–' : `${(on.stateBytes / 1024).toFixed(0)} KiB`,
        processing === undefined ? '–' : fmt(processing),
        rate(hand) === undefined ? '–' : fmt(rate(hand)!),
        showRatio(ratio(processing, rate(hand)), hand === undefined ? undefined : handGoal),
        rate(d2) === undefined ? (d2 === undefined ? '–' : d2.status) : fmt(rate(d2)!),
        showRatio(ratio(processing, rate(d2)), d2 === undefined ? undefined : GOALS.d2mini),
        flink === undefined ? '–' : fmt(flink.v1),
        flink === undefined ? '–' : fmt(flink.v2),
        showRatio(ratio(rate(off), flink?.v2), flink === undefined ? undefined : GOALS.flink),
      ].join(' | ').replace(/^/, '| ') + ' |',
    );
  }
  return lines;
}

/** The JSON document (rates rounded). */
function jsonDocument(report: BenchReport) {
  const round = (m: NexmarkMeasurement) => ({
    ...m,
    seconds: Number(m.seconds.toFixed(3)),
    ...(m.startMs === undefined ? {} : { startMs: Number(m.startMs.toFixed(1)) }),
    eventsPerSecond: Math.round(m.eventsPerSecond),
    peakRssMb: Number(m.peakRssMb.toFixed(1)),
    heapUsedMb: Number(m.heapUsedMb.toFixed(1)),
    ...(m.processingEventsPerSecond === undefined ? {} : { processingEventsPerSecond: Math.round(m.processingEventsPerSecond) }),
    ...(m.generatorEventsPerSecond === undefined ? {} : { generatorEventsPerSecond: Math.round(m.generatorEventsPerSecond) }),
    ...(m.materializeEventsPerSecond === undefined ? {} : { materializeEventsPerSecond: Math.round(m.materializeEventsPerSecond) }),
  });
  return {
    machine: machine(),
    date: new Date().toISOString(),
    workload: { ...report.workload, source: "nexmark (published ddl.sql), bounded, 'max-emit-speed' true, blackhole sinks" },
    results: report.results.map(round),
    flinkPerCore: FLINK_PER_CORE,
    ...(report.stateSize === undefined ? {} : { stateSize: report.stateSize }),
    ...(report.groupBy === undefined ? {} : { groupBy: report.groupBy }),
    ...(report.checkpointOverhead === undefined ? {} : { checkpointOverhead: report.checkpointOverhead }),
    ...(report.stateScale === undefined ? {} : { stateScale: report.stateScale }),
    ...(report.recovery === undefined ? {} : { recovery: report.recovery }),
    ...(report.postgresSink === undefined ? {} : { postgresSink: report.postgresSink }),
    ...(report.viewDdl === undefined ? {} : { viewDdl: report.viewDdl }),
    ...(report.dss === undefined ? {} : { dss: report.dss }),
  };
}

/** How many runs each query's figures are the median of (a table may merge runs of `--only`). */
function runsSummary(results: readonly NexmarkMeasurement[]): string {
  const byRuns = new Map<number, Set<string>>();
  for (const m of results) {
    const runs = m.samples?.length ?? 1;
    byRuns.set(runs, (byRuns.get(runs) ?? new Set()).add(m.query));
  }
  const counts = [...byRuns.keys()].sort((a, b) => b - a);
  if (counts.length <= 1) return `median of ${counts[0] ?? 1} run(s)`;
  return 'median of ' + counts.map((n, i) => `${n} run(s) ${i === counts.length - 1 ? 'for the other queries' : `for ${[...byRuns.get(n)!].join(', ')}`}`).join(', ');
}

/** ` (median N ms)` over weir's runs that report their start, or nothing. */
function startMs(results: readonly NexmarkMeasurement[]): string {
  const starts = results.map((r) => r.startMs).filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
  return starts.length === 0 ? '' : ` (median ${starts[Math.floor(starts.length / 2)]!.toFixed(0)} ms)`;
}

function markdown(report: BenchReport): string {
  const m = machine();
  const w = report.workload;
  const lines = [
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}. Every measurement in its own process${w.pinnedCore === null ? '' : ` pinned to core ${w.pinnedCore} (taskset)`}; ${runsSummary(report.results)}.`,
    '',
    `### Nexmark: ${fmt(w.events)} events, \`first-event.rate\` ${fmt(w.tps)}, blackhole sinks`,
    '',
    'weir ev/s includes generating the events (as Flink\'s figures do, so it is what is compared with Flink). ' +
      '¹ Where references exist, weir also runs over the same events generated ahead (a source replaying batches generated before the job, as the references read them): that rate is what they are compared with; ' +
      'for the other queries the column is the generating run with the time inside the source\'s poll taken out. ' +
      `weir is timed from its source's first poll to the end of the job (final watermark, final checkpoint and sink close included); planning the query, generating its code and starting the job${startMs(report.results)} are not timed, as the references' setup is not. ` +
      'Checkpoints: EXACTLY_ONCE every second to local files (incremental), plus the final one; "state at end" is its size. ✓/✗: the issue\'s goals ' +
      `(≥ ${GOALS.flink}× Flink V2 per core, ≥ ${GOALS.d2mini}× d2mini, ≥ ⅓ of hand-written on q0–q2, ≥ ¼ on the others).`,
    '',
    ...nexmarkTable(report.results),
  ];
  const gen = report.results.map((r) => r.generatorEventsPerSecond).filter((g): g is number => g !== undefined).sort((a, b) => a - b);
  if (gen.length > 0) lines.push('', `weir's nexmark generator alone (time inside the source's poll) runs at ${fmt(gen[Math.floor(gen.length / 2)]!)} events/s (median over weir's runs): the ceiling of every end-to-end figure.`);
  if (report.stateSize !== undefined) {
    const s = report.stateSize;
    lines.push(
      '',
      `### Keyed state of a GROUP BY count/sum at ${fmt(s.keys)} keys`,
      '',
      `Heap: **${s.heapBytesPerKey.toFixed(0)} bytes/key** (goal ≤ ${GOALS.bytesPerKey}${s.heapBytesPerKey <= GOALS.bytesPerKey ? ' ✓' : ' ✗'}); checkpoint: ${s.checkpointBytesPerKey.toFixed(0)} bytes/key; peak RSS ${s.peakRssMb.toFixed(0)} MB.`,
    );
  }
  if (report.groupBy !== undefined) {
    const g = report.groupBy;
    const hand = g.measurements.find((x) => x.name === 'hand-written loop');
    const weir = g.measurements.find((x) => x.name === 'weir');
    lines.push(
      '',
      `### datagen → GROUP BY k COUNT(*), SUM(v) over 10K keys → blackhole (${fmt(g.rows)} rows, in-process)`,
      '',
      '| engine | rows/s | changes emitted |',
      '|---|---:|---:|',
      ...g.measurements.map((x) => `| ${x.name} | ${fmt(x.rowsPerSecond)} | ${fmt(x.changes)} |`),
      '',
      `weir / hand-written = **${showRatio(ratio(weir?.rowsPerSecond, hand?.rowsPerSecond))}** (goal ≥ 0.33).`,
    );
  }
  if (report.checkpointOverhead !== undefined) {
    const { rows, plain, checkpointed, samples, syncShares } = report.checkpointOverhead;
    const pairs = samples === undefined ? [] : samples.plain.map((p, i) => 1 - samples.checkpointed[i]! / p);
    const overhead = pairs.length > 0 ? medianOf(pairs) : 1 - checkpointed.rowsPerSecond / plain.rowsPerSecond;
    const percent = (x: number): string => `${(x * 100).toFixed(1)}%`;
    const runs = samples === undefined ? '' : ` (pairs, without / with: ${samples.plain.map((p, i) => `${fmt(p)} / ${fmt(samples.checkpointed[i]!)}`).join(', ')})`;
    lines.push(
      '',
      `### Checkpoint overhead (GROUP BY over 100K keys, ${fmt(rows)} rows, EXACTLY_ONCE every 1 s to local files, ${pairs.length || 'median of 3'} pairs of runs, each run in its own pinned process)`,
      '',
      `Median runs: ${fmt(plain.rowsPerSecond)} rows/s without, ${fmt(checkpointed.rowsPerSecond)} rows/s with${runs}. ` +
        `Overhead, the median over pairs of the throughput lost: **${percent(overhead)}** (goal ≤ 5%; pairs ${pairs.map(percent).join(', ')}). ` +
        (syncShares === undefined ? '' : `Processing stopped for the synchronous snapshots ${syncShares.map(percent).join(', ')} of each checkpointed run. `) +
        `${checkpointed.checkpoints} checkpoints in the median run, the last took ${checkpointed.lastCheckpointMs?.toFixed(0) ?? 'n/a'} ms and holds ${checkpointed.lastCheckpointBytes === undefined ? 'n/a' : `${(checkpointed.lastCheckpointBytes / 1024).toFixed(0)} KiB`}.`,
    );
  }
  if (report.stateScale !== undefined) lines.push(...stateScaleMarkdown(report.stateScale));
  if (report.recovery !== undefined) lines.push(...recoveryMarkdown(report.recovery));
  if (report.postgresSink !== undefined) lines.push(...pgSinkMarkdown(report.postgresSink));
  if (report.viewDdl !== undefined) lines.push(...viewDdlMarkdown(report.viewDdl));
  if (report.dss !== undefined) lines.push(...dssMarkdown(report.dss));
  return lines.join('\n') + '\n';
}

/** The median of `values` (the mean of the middle two for an even count). */
function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The report latest.json in `dir` holds (rates as rounded there), if any. */
export function readReport(dir: string): BenchReport | undefined {
  const file = join(dir, 'latest.json');
  if (!existsSync(file)) return undefined;
  const { workload, results, stateSize, groupBy, checkpointOverhead, stateScale, recovery, postgresSink, viewDdl, dss } = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  const { events, tps, runs, pinnedCore } = workload;
  return { workload: { events, tps, runs, pinnedCore }, results, stateSize, groupBy, checkpointOverhead, stateScale, recovery, postgresSink, viewDdl, dss } as BenchReport;
}

/**
 * `current` with what it did not measure taken from `previous`: each other section, in the
 * Nexmark section the queries it did not run when both ran the same workload (a different
 * workload replaces the section, so that no table mixes event counts), and in the state-at-scale
 * section the cases (backend, keys, rows) it did not run.
 */
export function carryOver(previous: BenchReport | undefined, current: BenchReport): BenchReport {
  if (previous === undefined) return current;
  const sameWorkload = previous.workload.events === current.workload.events && previous.workload.tps === current.workload.tps;
  const measured = new Set(current.results.map((r) => r.query));
  const nexmark =
    current.results.length === 0
      ? previous
      : sameWorkload
        ? { workload: current.workload, results: [...previous.results.filter((r) => !measured.has(r.query)), ...current.results] }
        : current;
  const pick = <K extends keyof BenchReport>(key: K): Partial<BenchReport> => {
    const value = current[key] ?? previous[key];
    return value === undefined ? {} : { [key]: value };
  };
  return {
    workload: nexmark.workload,
    results: nexmark.results,
    ...pick('stateSize'),
    ...pick('groupBy'),
    ...pick('checkpointOverhead'),
    ...(current.stateScale !== undefined && previous.stateScale !== undefined ? { stateScale: mergeStateScale(previous.stateScale, current.stateScale) } : pick('stateScale')),
    ...pick('recovery'),
    ...pick('postgresSink'),
    ...pick('viewDdl'),
    ...pick('dss'),
  };
}

/** The cases of `current`, after those of `previous` it did not run again (in their order). */
function mergeStateScale(previous: StateScaleSection, current: StateScaleSection): StateScaleSection {
  const caseKey = ({ checkpointed: c }: StateScaleSection['cases'][number]): string => `${c.backend ?? 'hashmap'} ${c.keys} ${c.rows} ${c.sequence === true}`;
  const measured = new Set(current.cases.map(caseKey));
  return { cases: [...previous.cases.filter((c) => !measured.has(caseKey(c))), ...current.cases] };
}

/** Writes latest.json and latest.md into `dir`. */
export function writeReport(dir: string, report: BenchReport): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), JSON.stringify(jsonDocument(report), null, 2) + '\n');
  writeFileSync(join(dir, 'latest.md'), markdown(report));
}
