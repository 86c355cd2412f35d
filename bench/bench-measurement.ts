/** What one benchmark child process is asked to measure, and what it reports. */
import type { CheckpointRun } from './checkpoint-bench.js';
import type { PgSinkRun, PgSinkSpec } from './pg-sink-measurement.js';
import type { RecoveryRun, RecoverySpec } from './recovery-bench.js';
import type { StateScaleRun, StateScaleSpec } from './state-scale-bench.js';

/** Who runs the query. */
export type BenchEngine = 'weir' | 'handwritten' | 'd2mini';

/** One Nexmark measurement: a query run by one engine over a workload, in its own process. */
export interface NexmarkSpec {
  readonly kind: 'nexmark';
  readonly query: string;
  readonly engine: BenchEngine;
  readonly events: number;
  readonly tps: number;
  /** weir only: EXACTLY_ONCE checkpoints every second to local files (incremental, as by default). */
  readonly checkpointing: boolean;
  /** weir only: read events generated ahead (replayed-nexmark-connector.ts), as the references do, instead of generating them while it runs. */
  readonly replayed?: boolean;
}

/** The keyed state of a GROUP BY count/sum over `keys` distinct keys: heap and checkpoint bytes per key. */
export interface StateSizeSpec {
  readonly kind: 'state-size';
  readonly keys: number;
}

/** One run of the checkpoint-overhead query (see checkpoint-bench.ts), with or without checkpoints. */
export interface CheckpointSpec {
  readonly kind: 'checkpoint';
  readonly rows: number;
  readonly checkpointing: boolean;
}

/** What a child measures. */
export type ChildSpec = NexmarkSpec | StateSizeSpec | PgSinkSpec | CheckpointSpec | StateScaleSpec | RecoverySpec;

/** How a measurement ended: `unsupported` when weir rejects the query, `failed` when its job failed or the child died. */
export type MeasurementStatus = 'ok' | 'unsupported' | 'failed' | 'timeout';

/** The result of one Nexmark measurement (the median run, when repeated). */
export interface NexmarkMeasurement {
  readonly query: string;
  readonly engine: BenchEngine;
  readonly events: number;
  readonly checkpointing: boolean;
  /** weir: the run read events generated ahead (what is compared with the references). */
  readonly replayed?: boolean;
  readonly status: MeasurementStatus;
  /** Why the query did not run, when it did not. */
  readonly error?: string;
  /** The timed part: weir from its source's first poll to the end of the job; references, their processing calls. */
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** weir: from submitting the INSERT to the first poll (planning, code generation, starting the job), not timed. */
  readonly startMs?: number;
  /** `process.resourceUsage().maxRSS` of the child at the end. */
  readonly peakRssMb: number;
  /** Heap in use after a full GC at the end, with the job's state still reachable. */
  readonly heapUsedMb: number;
  /** Changes the query emitted (rows into the sink). */
  readonly outputRecords: number;
  /** weir with checkpointing: bytes of the last (final) checkpoint, i.e. the state at the end. */
  readonly stateBytes?: number;
  /** weir with checkpointing: checkpoints completed. */
  readonly checkpoints?: number;
  /** weir with checkpointing: bytes of keyed state the completed checkpoints wrote, in all (deltas as written). */
  readonly checkpointBytes?: number;
  /** weir with checkpointing: the longest synchronous pause of a subtask at a barrier, in milliseconds. */
  readonly checkpointSyncMaxMs?: number;
  /** weir: events/s with the time spent generating events taken out (what the references are compared with). */
  readonly processingEventsPerSecond?: number;
  /** weir: how fast its source generated the events (time inside the reader's poll). */
  readonly generatorEventsPerSecond?: number;
  /** References: how fast the events were generated and kept in memory for them (outside their timed part). */
  readonly materializeEventsPerSecond?: number;
  /** events/s of every run, when repeated. */
  readonly samples?: readonly number[];
}

/** The result of a {@link StateSizeSpec}. */
export interface StateSizeMeasurement {
  readonly keys: number;
  readonly heapBytesPerKey: number;
  readonly checkpointBytesPerKey: number;
  readonly peakRssMb: number;
}

/** What a child prints as its last stdout line. */
export type ChildResult = NexmarkMeasurement | StateSizeMeasurement | PgSinkRun | CheckpointRun | StateScaleRun | RecoveryRun;

/** The run with the median events/s (the lower middle one for an even count), with every run's rate attached. */
export function medianRun(runs: readonly NexmarkMeasurement[]): NexmarkMeasurement {
  const sorted = [...runs].sort((a, b) => a.eventsPerSecond - b.eventsPerSecond);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return runs.length > 1 ? { ...median, samples: runs.map((r) => Math.round(r.eventsPerSecond)) } : median;
}
