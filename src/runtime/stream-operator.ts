/**
 * The contract of every operator in a running job. Operators run synchronously over batches:
 * `processBatch` must not await. Asynchronous work (sinks) is handed to the task through
 * `OperatorContext.waitFor`, which holds back the sources until it settles.
 */
import type { ChangeBatch } from '../common/row.js';
import type { KeyedStateBackend } from './state/keyed-state-backend.js';

/** Where an operator sends its output. */
export interface Output {
  /** Passes a batch downstream; the batch may be reused by the caller once this returns. */
  collect(batch: ChangeBatch): void;
  /** Passes a watermark (event-time progress, epoch milliseconds) downstream. */
  emitWatermark(watermark: number): void;
}

/** What the runtime gives an operator when it opens. */
export interface OperatorContext {
  /** The operator's id in the job graph (stable across restarts). */
  readonly operatorId: string;
  readonly subtask: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly output: Output;
  /** Keyed state scoped to the current key (Flink's keyed state backend). */
  readonly keyedState: KeyedStateBackend;
  /**
   * Registers asynchronous work (a sink's write); sources pause until it settles, and a rejection
   * fails the job.
   */
  waitFor(work: Promise<void>): void;
  /** Reports a problem that does not stop the job. */
  warn(message: string): void;
}

/** An operator of a running job. Every hook except `processBatch` is optional. */
export interface StreamOperator {
  open?(context: OperatorContext): void | Promise<void>;
  /** Processes one batch from input `input` (0 for single-input operators). */
  processBatch(batch: ChangeBatch, input: number): void;
  /** Event-time progress on an input; the default forwards the minimum over inputs. */
  processWatermark?(watermark: number, input: number): void;
  /** Input `input` has ended; the last input ending lets the operator emit final results. */
  endInput?(input: number): void | Promise<void>;
  close?(): void | Promise<void>;
}
