/**
 * The contract between the runtime and a connector whose tables can be looked up by key (the
 * right side of a processing-time lookup join, Flink's LookupTableSource). A lookup answers a
 * batch of keys at once, so that a connector can fetch them in one round trip; caching is the
 * connector's business and is never checkpointed.
 */
import type { Row } from '../common/row.js';
import type { LookupTableSpec } from '../dataflow/job-graph.js';
import type { ProcessingTimeService } from './task/processing-time-service.js';

/** What a lookup gets from the runtime. */
export interface LookupContext {
  readonly subtask: number;
  readonly parallelism: number;
  /** The clock cache expiry is measured by. */
  readonly processingTime: ProcessingTimeService;
  /** Reports a problem that does not stop the job (a retried query). */
  warn(message: string): void;
}

/**
 * The rows of the table for each key asked for, in the order of the keys: `result[i]` holds the
 * rows whose key columns equal `keys[i]` (possibly none).
 */
export type LookupResult = readonly (readonly Row[])[];

/** Looks rows of one table up by the values of its key columns (`LookupTableSpec.keys`). */
export interface LookupFunction {
  open(context: LookupContext): Promise<void>;
  /**
   * The rows matching each key (`keys[i]` holds one value per key column, none NULL; keys are
   * distinct). Synchronous when the answer is at hand (a cache hit, an in-memory table); a
   * promise when it needs I/O. A rejection fails the job.
   */
  lookup(keys: readonly Row[]): LookupResult | Promise<LookupResult>;
  close(): Promise<void>;
}

/** Creates lookup functions for one connector. */
export interface LookupFactory {
  createLookup(spec: LookupTableSpec): LookupFunction;
}
