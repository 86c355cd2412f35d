/**
 * A driver for testing one StreamOperator without a task: it opens the operator against an
 * in-memory keyed state backend and an Output that records everything, lets a test push batches
 * and watermarks written as `[kind, row]` pairs (`['+I', [1, 'a']]`), and returns what the operator
 * emitted in the same notation. The backend is the heap one unless the `stateBackend` option or
 * `WEIR_TEST_STATE_BACKEND` asks for another (`copying`, the contract-checking one, or `lmdb`, the disk one). Promises the operator hands to `waitFor` are collected and can be
 * awaited with `settle()`.
 *
 * ```ts
 * const h = await OperatorHarness.open(new GroupAggregateOperator(countByFirstColumn));
 * expect(h.push([['+I', ['a', 7]], ['+I', ['a', 8]]])).toEqual([['+I', ['a', 2]]]);
 * expect(materialize(h.output)).toEqual([['a', 2]]);
 * ```
 */
import { encodeComponent, type Key } from '../../src/common/key-codec.js';
import { ChangeBatch, type Row } from '../../src/common/row.js';
import { ROW_KIND_SHORT, parseRowKind, type RowKindShort } from '../../src/common/row-kind.js';
import type { StateTtlOptions } from '../../src/runtime/state/memory-state-backend.js';
import type { SnapshottingStateBackend } from '../../src/runtime/state/snapshotting-state-backend.js';
import { createStateBackend, stateBackendKindFromEnv, type StateBackendKind } from '../../src/runtime/state/state-backend-factory.js';
import type { OperatorContext, StreamOperator } from '../../src/runtime/stream-operator.js';
import type { ProcessingTimeService } from '../../src/runtime/task/processing-time-service.js';

/** A changelog record in test notation. */
export type Change = readonly [RowKindShort, Row];

/** Identity of the operator instance; every field has a default. */
export interface HarnessOptions {
  readonly operatorId?: string;
  readonly subtask?: number;
  readonly parallelism?: number;
  readonly maxParallelism?: number;
  /** Whether the job takes checkpoints (default false). */
  readonly checkpointing?: boolean;
  /** Keyed state to restore before the operator opens (as a restarted job does), keeping the keys `owns` accepts (default all). */
  readonly restore?: { readonly snapshot: Uint8Array; readonly owns?: (key: Key) => boolean };
  /** A time-to-live for the keyed state (`table.exec.state.ttl`); absent keeps state forever. */
  readonly stateTtl?: StateTtlOptions;
  /** The keyed state backend: the heap one, or the contract-checking copying one (default: `WEIR_TEST_STATE_BACKEND`, else heap). */
  readonly stateBackend?: StateBackendKind;
}

/** An opened operator with recording output (see the module comment). */
export class OperatorHarness {
  /** The operator's keyed state. */
  readonly state: SnapshottingStateBackend;
  /** Messages passed to `context.warn`, in order. */
  readonly warnings: string[] = [];
  /** Watermarks the operator emitted, in order. */
  readonly watermarks: number[] = [];
  /** Every change the operator emitted, in order. */
  readonly output: Change[] = [];
  /** The operator's processing-time clock; it only moves when a test calls `advanceTime`. */
  readonly clock = new ManualClock();
  private readonly pending: Promise<void>[] = [];

  private constructor(readonly operator: StreamOperator, stateTtl: StateTtlOptions | undefined, stateBackend: StateBackendKind) {
    this.state = createStateBackend(stateBackend, stateTtl ?? {});
  }

  /** Opens `operator` in a fresh harness. */
  static async open(operator: StreamOperator, options: HarnessOptions = {}): Promise<OperatorHarness> {
    const harness = new OperatorHarness(operator, options.stateTtl, options.stateBackend ?? stateBackendKindFromEnv());
    if (options.restore !== undefined) harness.state.restore(options.restore.snapshot, options.restore.owns ?? (() => true));
    await operator.open?.(harness.context(options));
    return harness;
  }

  /** Pushes one batch into input `input`; returns the changes emitted while processing it. */
  push(changes: readonly Change[], input = 0): Change[] {
    return this.pushBatch(ChangeBatch.of(changes.map(([kind, row]) => [parseRowKind(kind), row])), input);
  }

  /** Pushes a prepared batch; returns the changes emitted while processing it. */
  pushBatch(batch: ChangeBatch, input = 0): Change[] {
    const start = this.output.length;
    this.operator.processBatch(batch, input);
    return this.output.slice(start);
  }

  /** Pushes a watermark into input `input`; returns the watermarks emitted meanwhile. */
  watermark(watermark: number, input = 0): number[] {
    const start = this.watermarks.length;
    this.operator.processWatermark?.(watermark, input);
    return this.watermarks.slice(start);
  }

  /** Ends input `input`; returns the changes emitted meanwhile. */
  async endInput(input = 0): Promise<Change[]> {
    const start = this.output.length;
    await this.operator.endInput?.(input);
    return this.output.slice(start);
  }

  /** Moves the processing-time clock to `time`, firing due timers in time order; returns the changes emitted meanwhile. */
  advanceTime(time: number): Change[] {
    const start = this.output.length;
    this.clock.advance(time);
    return this.output.slice(start);
  }

  /** Awaits every promise handed to `waitFor` so far (rejecting if one does). */
  async settle(): Promise<void> {
    while (this.pending.length > 0) await Promise.all(this.pending.splice(0));
  }

  /** Closes the operator after settling pending work, then releases its keyed state. */
  async close(): Promise<void> {
    await this.settle();
    await this.operator.close?.();
    this.state.dispose();
  }

  private context(options: HarnessOptions): OperatorContext {
    return {
      operatorId: options.operatorId ?? 'operator-under-test',
      run: this,
      subtask: options.subtask ?? 0,
      parallelism: options.parallelism ?? 1,
      maxParallelism: options.maxParallelism ?? 128,
      checkpointing: options.checkpointing ?? false,
      keyedState: this.state,
      processingTime: this.clock,
      output: {
        collect: (batch) => {
          for (let i = 0; i < batch.size; i++) this.output.push([ROW_KIND_SHORT[batch.kinds[i]!], batch.rows[i]!]);
        },
        emitWatermark: (watermark) => void this.watermarks.push(watermark),
      },
      waitFor: (work) => void this.pending.push(work),
      warn: (message) => void this.warnings.push(message),
    };
  }
}

/** A processing-time service whose time moves only when told to (timers fire synchronously in `advance`). */
export class ManualClock implements ProcessingTimeService {
  private time = 0;
  private timers: { time: number; callback: (time: number) => void }[] = [];

  now(): number {
    return this.time;
  }

  registerTimer(time: number, callback: (time: number) => void): () => void {
    const timer = { time, callback };
    this.timers.push(timer);
    return () => void (this.timers = this.timers.filter((t) => t !== timer));
  }

  /** Sets the clock to `time` and fires every timer due by then, earliest first. */
  advance(time: number): void {
    this.time = time;
    for (;;) {
      const due = this.timers.filter((t) => t.time <= time).sort((a, b) => a.time - b.time)[0];
      if (due === undefined) return;
      this.timers = this.timers.filter((t) => t !== due);
      due.callback(due.time);
    }
  }
}

/**
 * The table a changelog describes: applies +I/+U as inserts and -U/-D as deletes of an equal row
 * (values compared exactly, bigints included) and returns the surviving rows in a canonical order.
 * Throws when a change retracts a row that is not in the table, which a correct changelog never does.
 */
export function materialize(changes: Iterable<Change>): Row[] {
  const table = new Map<string, { row: Row; count: number }>();
  for (const [kind, row] of changes) {
    const id = row.map(encodeComponent).join('');
    const entry = table.get(id);
    if (kind === '+I' || kind === '+U') {
      if (entry === undefined) table.set(id, { row, count: 1 });
      else entry.count++;
    } else if (entry === undefined) {
      throw new Error(`changelog retracts ${kind} ${JSON.stringify(row, jsonBigint)}, which is not in the table`);
    } else if (--entry.count === 0) table.delete(id);
  }
  return [...table.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([, { row, count }]) => Array.from({ length: count }, () => row));
}

function jsonBigint(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
