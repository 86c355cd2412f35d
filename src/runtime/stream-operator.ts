/**
 * The contract of every operator in a running job. Operators run synchronously over batches:
 * `processBatch` must not await. Asynchronous work (sinks) is handed to the task through
 * `OperatorContext.waitFor`, which holds back the sources until it settles.
 */
import type { ChangeBatch } from '../common/row.js';
import type { KeyedStateBackend } from './state/keyed-state-backend.js';
import type { ProcessingTimeService } from './task/processing-time-service.js';

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
  /** True when the job takes checkpoints (transactional sinks then commit per checkpoint, not at the end). */
  readonly checkpointing: boolean;
  /** Identifies this run of the job in the process: the same for all its operators, new after every restart. */
  readonly run: object;
  readonly output: Output;
  /** Keyed state scoped to the current key (Flink's keyed state backend). */
  readonly keyedState: KeyedStateBackend;
  /** The wall clock and processing-time timers (timers are cancelled when the job closes). */
  readonly processingTime: ProcessingTimeService;
  /**
   * Registers asynchronous work (a sink's write); sources pause until it settles, and a rejection
   * fails the job.
   */
  waitFor(work: Promise<void>): void;
  /** Reports a problem that does not stop the job. */
  warn(message: string): void;
}

/** What an operator gets before it opens: whether it restarts from a checkpoint, and its restored operator state. */
export interface StateInitializationContext {
  /** True when the job resumed from a checkpoint or savepoint (keyed state is already restored). */
  isRestored(): boolean;
  /** The checkpoint the job resumed from. */
  readonly restoredCheckpointId: number | undefined;
  /** Operator states assigned to this subtask (values returned by `snapshotState` before the restart). */
  readonly operatorState: readonly unknown[];
}

/**
 * An operator of a running job. Every hook except `processBatch` is optional. The checkpoint
 * hooks mirror Flink's CheckpointedFunction and CheckpointListener.
 */
export interface StreamOperator {
  /** Called before `open`, with the state restored from a checkpoint (if any). */
  initializeState?(context: StateInitializationContext): void | Promise<void>;
  open?(context: OperatorContext): void | Promise<void>;
  /**
   * Operator state at barrier `checkpointId` (keyed state is snapshotted by the runtime). Must be
   * JSON-serialisable data. A promise only for sinks that pre-commit at the barrier; records that
   * arrive while it is pending belong to the next checkpoint.
   */
  snapshotState?(checkpointId: number): unknown;
  /** Checkpoint `checkpointId` is complete (and covers every earlier one); sinks commit here. */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  /** Processes one batch from input `input` (0 for single-input operators). */
  processBatch(batch: ChangeBatch, input: number): void;
  /** Event-time progress on an input; the default forwards the minimum over inputs. */
  processWatermark?(watermark: number, input: number): void;
  /** Transactions prepared for a checkpoint and not committed yet (two-phase-commit sinks), for metrics. */
  pendingTransactions?(): number;
  /** Input `input` has ended; the last input ending lets the operator emit final results. */
  endInput?(input: number): void | Promise<void>;
  close?(): void | Promise<void>;
}
