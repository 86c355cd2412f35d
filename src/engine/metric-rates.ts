/**
 * Rates over a recent window (records per second, the share of time an operator is busy), from
 * samples of a job's counters taken once a second: the rate is the change since the oldest sample
 * still inside the window, divided by the time since it. Counting stays in the runtime; only the
 * samples live here.
 */
import type { NodeMetrics } from '../runtime/job-execution.js';

/** How far back rates look (Flink's meters use 60 s; a shell user wants to see changes sooner). */
export const RATE_WINDOW_MS = 10_000;

/** Rates of one node over the window. */
export interface NodeRates {
  readonly recordsInPerSecond: number;
  readonly recordsOutPerSecond: number;
  /** Busy milliseconds per millisecond and subtask, in [0, 1]. */
  readonly busyRatio: number;
}

interface Sample {
  readonly at: number;
  readonly byNode: ReadonlyMap<string, NodeMetrics>;
}

/** Samples of one job's node metrics within the window. */
export class RateWindow {
  private readonly samples: Sample[] = [];

  /** Records the counters at monotonic time `at` (ms) and drops samples no longer needed. */
  add(at: number, metrics: readonly NodeMetrics[]): void {
    this.samples.push({ at, byNode: new Map(metrics.map((m) => [m.node, m])) });
    while (this.samples.length > 1 && this.samples[1]!.at <= at - RATE_WINDOW_MS) this.samples.shift();
  }

  /** The rates of each node from the oldest sample in the window to `current` at time `at`; zero rates when no time has passed. */
  rates(at: number, current: readonly NodeMetrics[]): Map<string, NodeRates> {
    const base = this.samples[0];
    const elapsed = base === undefined ? 0 : at - base.at;
    const result = new Map<string, NodeRates>();
    for (const now of current) {
      const then = base?.byNode.get(now.node);
      if (then === undefined || elapsed <= 0) {
        result.set(now.node, { recordsInPerSecond: 0, recordsOutPerSecond: 0, busyRatio: 0 });
        continue;
      }
      result.set(now.node, {
        recordsInPerSecond: ((now.recordsIn - then.recordsIn) * 1000) / elapsed,
        recordsOutPerSecond: ((now.recordsOut - then.recordsOut) * 1000) / elapsed,
        busyRatio: Math.min(1, Math.max(0, (now.busyMs - then.busyMs) / (elapsed * now.parallelism))),
      });
    }
    return result;
  }
}
