/**
 * The metrics of one job node, gathered from its subtasks when asked (nothing is computed per
 * record): counters kept by the runners, routers and readers, busy time from the busy clock,
 * the input watermark, keyed state entries, snapshot bytes and a sink's pending transactions.
 */
import { bigintReplacer, type JobNode } from '../../dataflow/job-graph.js';
import type { Subtask } from './subtask-wiring.js';

/** Per-node counters and gauges, summed (or, for the watermark, the minimum) over subtasks. */
export interface NodeMetrics {
  readonly node: string;
  /** The operator kind (`source`, `calc`, `group-aggregate`, `sink`, ...). */
  readonly kind: string;
  readonly parallelism: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  /** Records a source set aside as bad input (dead-lettered); 0 for other nodes. */
  readonly recordsRejected: number;
  /** Milliseconds spent processing, exclusive of the operators downstream. */
  readonly busyMs: number;
  /**
   * The operator's event-time progress (epoch ms): the later of its input watermark and the watermark it emitted (a
   * watermark assigner's own), minimum over subtasks; undefined before the first and after the end of input.
   */
  readonly watermark: number | undefined;
  /** Entries of keyed state now (one per key and declared state). */
  readonly stateEntries: number;
  /** Bytes of keyed state in the latest snapshot; undefined when none was taken. */
  readonly stateBytes: number | undefined;
  /** Transactions a sink prepared that are not committed yet (two-phase commit); 0 for other nodes. */
  readonly pendingTransactions: number;
}

/** The metrics of `node` over its subtasks; `snapshotBytes` holds each subtask's keyed state bytes at its latest snapshot. */
export function nodeMetrics(node: JobNode, subtasks: readonly Subtask[], snapshotBytes: ReadonlyMap<Subtask, number>): NodeMetrics {
  let recordsIn = 0;
  let recordsOut = 0;
  let recordsRejected = 0;
  let busyMs = 0;
  let watermark = Infinity;
  let stateEntries = 0;
  let stateBytes: number | undefined;
  let pendingTransactions = 0;
  for (const subtask of subtasks) {
    recordsIn += subtask.runner?.recordsIn ?? 0;
    recordsOut += subtask.output.recordsOut;
    recordsRejected += subtask.source?.reader.rejectedRecords?.() ?? 0;
    busyMs += (subtask.runner ?? subtask.source)?.busy.ms ?? 0;
    watermark = Math.min(watermark, Math.max(subtask.runner?.watermark ?? -Infinity, subtask.output.watermark));
    stateEntries += subtask.state.stateEntries();
    const bytes = snapshotBytes.get(subtask);
    if (bytes !== undefined) stateBytes = (stateBytes ?? 0) + bytes;
    pendingTransactions += subtask.operator?.pendingTransactions?.() ?? 0;
  }
  return {
    node: node.id,
    kind: node.spec.kind,
    parallelism: node.parallelism,
    recordsIn,
    recordsOut,
    recordsRejected,
    busyMs,
    watermark: Number.isFinite(watermark) ? watermark : undefined,
    stateEntries,
    stateBytes,
    pendingTransactions,
  };
}

/** Bytes a subtask wrote for a checkpoint: its keyed state file and its operator state (kept as JSON in the metadata). */
export function snapshotSize(keyed: Uint8Array | undefined, operatorState: unknown): number {
  const json = operatorState === undefined ? 0 : Buffer.byteLength(JSON.stringify(operatorState, bigintReplacer) ?? '');
  return (keyed?.byteLength ?? 0) + json;
}
