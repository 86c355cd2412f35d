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
}

/** Creates writers for one connector. */
export interface SinkFactory {
  createWriter(spec: SinkSpec): SinkWriter;
}
