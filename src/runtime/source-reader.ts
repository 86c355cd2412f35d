/**
 * The contract between the runtime and a source connector. A reader fills batches on request;
 * the runtime decides when to poll, injects barriers between polls, and stores the reader's
 * offset in checkpoints, so a reader never sees checkpointing directly.
 */
import type { ChangeBatch } from '../common/row.js';
import type { SourceSpec } from '../dataflow/job-graph.js';

/** What a poll found: more records may follow at once, none are available now, or the input ended. */
export type PollStatus = 'more' | 'idle' | 'end';

/** What a reader gets from the runtime. */
export interface SourceContext {
  /** The subtask this reader runs as, and how many there are (a reader reads its share of the input). */
  readonly subtask: number;
  readonly parallelism: number;
  /** Reports a problem that does not stop the job (a skipped record, a retry), for logs and metrics. */
  warn(message: string): void;
}

/** Reads one subtask's share of a source. */
export interface SourceReader {
  open(context: SourceContext): Promise<void>;
  /**
   * Appends at most `maxRecords` records to `output`. Synchronous when data is at hand; a promise
   * only when the reader must wait for I/O. After 'end', poll is not called again.
   */
  poll(output: ChangeBatch, maxRecords: number): PollStatus | Promise<PollStatus>;
  /**
   * The position after the last record returned by poll, as JSON-serialisable data. When it is
   * recorded for a barrier, `checkpointId` names that checkpoint (what a later
   * `notifyCheckpointComplete` refers to).
   */
  currentOffset(checkpointId?: number): unknown;
  /**
   * False while the reader's position cannot be resumed from (inside an initial snapshot, in the
   * middle of a transaction emitted over several polls): a pending barrier then waits until it is
   * true again. Absent means always true.
   */
  checkpointable?(): boolean;
  /** Continues after the given offset instead of from the start. Called before `open`. */
  seek?(offset: unknown): void;
  /**
   * Checkpoint `checkpointId` has completed: every offset up to the one this reader reported for it
   * is durable, so the reader may release input it kept for replay (acknowledge messages, advance
   * a replication slot). A rejection fails the job.
   */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  close(): Promise<void>;
  /** Records set aside as bad input so far (dead-lettered), for the job's metrics; absent means none. */
  rejectedRecords?(): number;
  /**
   * How far the reader is through its share of the input, in a unit of its choosing (rows,
   * bytes), with the total when it is known; for progress display. Absent means unknown.
   */
  progress?(): { readonly done: number; readonly total?: number };
}

/** Creates readers for one connector. */
export interface SourceFactory {
  createReader(spec: SourceSpec): SourceReader;
  /**
   * Resolves true once every open reader has read the input written to its tables before the
   * call, so that a checkpoint triggered next follows it (FLUSH); false if `signal` aborts first.
   * Absent: the connector's input is not written through weir, and there is nothing to wait for.
   */
  caughtUp?(signal: AbortSignal): Promise<boolean>;
  /** How much the tables open readers follow hold: grows with every write into one of them (present with `caughtUp`). */
  writtenMark?(): number;
}
