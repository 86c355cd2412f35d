/**
 * The Nexmark benchmark: every query weir knows, by weir (checkpointing off and on, and, where
 * references implement it, over events generated ahead as they read them) and by the references
 * (hand-written, d2mini), each run in its own pinned child process,
 * `runs` times, interleaved so that drift on a shared machine affects every engine alike; the
 * median run of each is kept. A query weir rejects is measured once and reported with the reason;
 * a measurement whose first run took longer than {@link SLOW_SECONDS} is not repeated (its
 * relative noise is small, and repeating it would dominate the benchmark's time).
 */
import type { BenchEngine, NexmarkMeasurement, NexmarkSpec } from './bench-measurement.js';
import { medianRun } from './bench-measurement.js';
import { runInChild, type ChildOptions } from './child-process-runner.js';
import { D2MINI_QUERIES } from './d2mini-queries.js';
import { HANDWRITTEN_QUERIES } from './handwritten-queries.js';
import { nexmarkQueries, type NexmarkWorkload } from './nexmark-query-catalog.js';

/** What to run. */
export interface NexmarkBenchOptions extends ChildOptions {
  readonly workload: NexmarkWorkload;
  /** Repetitions of every measurement (the median is reported). */
  readonly runs: number;
  /** Only these queries (all when absent). */
  readonly only?: readonly string[];
  /** Progress lines. */
  log(line: string): void;
}

/** Runs longer than this (in seconds) are not repeated. */
export const SLOW_SECONDS = 20;

/** The measurements to take for one query. */
function plansFor(query: string, workload: NexmarkWorkload): NexmarkSpec[] {
  const spec = (engine: BenchEngine, checkpointing: boolean): NexmarkSpec => ({ kind: 'nexmark', query, engine, events: workload.events, tps: workload.tps, checkpointing });
  const references = [...(query in HANDWRITTEN_QUERIES ? [spec('handwritten', false)] : []), ...(query in D2MINI_QUERIES ? [spec('d2mini', false)] : [])];
  // With references, weir also reads the same events generated ahead: that rate is what they are compared with.
  return [spec('weir', false), spec('weir', true), ...(references.length > 0 ? [{ ...spec('weir', false), replayed: true }] : []), ...references];
}

async function measure(spec: NexmarkSpec, options: ChildOptions): Promise<NexmarkMeasurement> {
  try {
    return (await runInChild(spec, options)) as NexmarkMeasurement;
  } catch (error) {
    const status = (error as { timeout?: boolean }).timeout ? 'timeout' : 'failed';
    return { query: spec.query, engine: spec.engine, events: spec.events, checkpointing: spec.checkpointing, ...(spec.replayed === true ? { replayed: true } : {}), status, error: (error as Error).message, seconds: 0, eventsPerSecond: 0, peakRssMb: 0, heapUsedMb: 0, outputRecords: 0 };
  }
}

function describe(m: NexmarkMeasurement): string {
  const who = `${m.query.padEnd(8)} ${m.engine.padEnd(11)} ${m.checkpointing ? 'ckpt  ' : m.replayed === true ? 'replay' : '      '}`;
  if (m.status !== 'ok') return `${who} ${m.status}: ${m.error ?? ''}`;
  return `${who} ${Math.round(m.eventsPerSecond).toLocaleString('en-US').padStart(11)} ev/s  ${m.peakRssMb.toFixed(0).padStart(5)} MB  ${m.outputRecords} out`;
}

/** Runs the benchmark; returns the median measurement of every (query, engine, checkpointing). */
export async function runNexmarkBench(options: NexmarkBenchOptions): Promise<NexmarkMeasurement[]> {
  const queries = nexmarkQueries().filter((q) => options.only === undefined || options.only.includes(q.name));
  const results: NexmarkMeasurement[] = [];
  for (const query of queries) {
    const plans = plansFor(query.name, options.workload);
    const runs = plans.map((): NexmarkMeasurement[] => []);
    for (let r = 0; r < options.runs; r++) {
      for (let p = 0; p < plans.length; p++) {
        const done = runs[p]!;
        if (done.some((m) => m.status !== 'ok') || (done.length > 0 && done[0]!.seconds > SLOW_SECONDS)) continue;
        const m = await measure(plans[p]!, options);
        options.log(describe(m));
        runs[p]!.push(m);
      }
    }
    for (const list of runs) {
      if (list.length === 0) continue;
      const failed = list.find((m) => m.status !== 'ok');
      results.push(failed ?? medianRun(list));
    }
  }
  return results;
}
