/**
 * The contract between the runtime and a sink connector. `write` takes a batch of changes
 * (synchronously buffered or written); `flush` makes everything written so far durable or
 * visible. Transactional sinks add the two-phase methods of the checkpoint protocol.
 */
import type { ChangeBatch } from '../common/row.js';
import type { SinkSpec } from '../dataflow/job-graph.js';

/** What a writer gets from the runtime. */
export interface SinkContext {
  readonly subtask: number;
  readonly parallelism: number;
  /** Identifies this run of the job in the process (writers of one run may coordinate, e.g. commit together); absent outside a job. */
  readonly run?: object;
  /** The job's resolved `table.local-time-zone` (absent: UTC): where writers that render TIMESTAMP_LTZ as text show its wall-clock time. */
  readonly timeZone?: string;
  /** Reports a problem that does not stop the job, for logs and metrics. */
  warn(message: string): void;
}

/** Writes one subtask's share of a sink. */
export interface SinkWriter {
  open(context: SinkContext): Promise<void>;
  /**
   * Takes the records of a batch (the batch itself is only valid during the call). Returns a
   * promise only when the caller must wait before writing more (backpressure).
   */
  write(batch: ChangeBatch): void | Promise<void>;
  /** Makes everything written so far durable or visible; called at the end of input. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * Operator state kept in checkpoints (Flink's CheckpointedFunction, e.g. rows buffered but not
   * yet flushed): called synchronously at each barrier; JSON-serialisable data.
   */
  snapshotState?(checkpointId: number): unknown;
  /** Receives the states returned by `snapshotState` before a restart (called before `open`). */
  initializeState?(states: readonly unknown[]): void;
  /**
   * Event-time progress at the sink (the minimum over its inputs), in order with the batches;
   * Infinity, the final watermark, once the input has ended. Returns a promise only when the
   * caller must wait for work it started.
   */
  processWatermark?(watermark: number): void | Promise<void>;
  /** Transactions this writer prepared that are not committed yet (two-phase commit), for metrics; absent means none. */
  pendingTransactions?(): number;
}

/** Creates writers for one connector. */
export interface SinkFactory {
  createWriter(spec: SinkSpec): SinkWriter;
}

/** A transaction prepared at a barrier, as recorded in the checkpoint (JSON-serialisable data). */
export interface PreparedTransaction {
  readonly checkpointId: number;
  readonly data: unknown;
}

/**
 * A sink that commits with the checkpoint protocol (Flink's TwoPhaseCommitSinkFunction):
 * at barrier n, `prepareCommit(n)` pre-commits everything written since the previous barrier
 * (durably, but invisible to readers) and returns what is needed to commit it; once checkpoint n
 * is complete, `commit` makes every prepared transaction up to n visible. After a restore from
 * checkpoint n, `recover` commits the transactions recorded in n (their checkpoint completed) and
 * aborts any other transaction this sink prepared after n. Commit and recover must tolerate
 * transactions that were already committed, and must fail loudly when one was lost.
 */
export interface TransactionalSinkWriter extends SinkWriter {
  prepareCommit(checkpointId: number): Promise<PreparedTransaction>;
  commit(transactions: readonly PreparedTransaction[]): Promise<void>;
  recover(pending: readonly PreparedTransaction[], restoredCheckpointId: number): Promise<void>;
}

/** True when a writer takes part in the checkpoint protocol. */
export function isTransactional(writer: SinkWriter): writer is TransactionalSinkWriter {
  const candidate = writer as Partial<TransactionalSinkWriter>;
  return typeof candidate.prepareCommit === 'function' && typeof candidate.commit === 'function' && typeof candidate.recover === 'function';
}
