/**
 * The Output of one subtask: sends its batches to every consumer according to the edge's
 * partitioning (forward, hash by key group, single, broadcast), and its watermarks, barriers, end
 * of data and end to every consumer subtask it is connected to.
 */
import { keyGroupOf, keySelector, subtaskOfKeyGroup, type KeySelector } from '../../common/key-codec.js';
import { ChangeBatch } from '../../common/row.js';
import type { Partitioning } from '../../dataflow/job-graph.js';
import type { Barrier } from '../checkpoint/barrier.js';
import type { Output } from '../stream-operator.js';
import type { Channel } from './channel.js';

/** One consumer input this subtask feeds: the channel into each consumer subtask, in subtask order. */
export interface OutputTarget {
  readonly partitioning: Partitioning;
  /** Channels to consumer subtasks; undefined where this producer is not connected (forward edges). */
  readonly channels: readonly (Channel | undefined)[];
}

/** Routes a subtask's output; counts records out. */
export class OutputRouter implements Output {
  recordsOut = 0;
  private lastWatermark = -Infinity;
  private readonly routes: readonly Route[];

  constructor(
    targets: readonly OutputTarget[],
    private readonly subtask: number,
    maxParallelism: number,
  ) {
    this.routes = targets.map((t) => makeRoute(t, subtask, maxParallelism));
  }

  collect(batch: ChangeBatch): void {
    this.recordsOut += batch.size;
    for (const route of this.routes) route.send(batch);
  }

  /** Sends a watermark downstream, unless it does not advance on the last one (watermarks only increase). */
  emitWatermark(watermark: number): void {
    if (watermark <= this.lastWatermark) return;
    this.lastWatermark = watermark;
    for (const route of this.routes) for (const channel of route.connected) channel.watermark(watermark);
  }

  /** Tells every connected consumer subtask that this subtask went idle, or became active again. */
  emitIdle(idle: boolean): void {
    for (const route of this.routes) for (const channel of route.connected) channel.idle?.(idle);
  }

  /** Sends a barrier to every connected consumer subtask. */
  emitBarrier(barrier: Barrier): void {
    for (const route of this.routes) for (const channel of route.connected) channel.barrier(barrier);
  }

  /** Sends end of data to every connected channel, one after another: this subtask emits nothing more but barriers. */
  async endOfData(): Promise<void> {
    for (const route of this.routes) for (const channel of route.connected) await channel.endOfData?.();
  }

  /** Ends every connected channel, one after another. */
  async end(): Promise<void> {
    for (const route of this.routes) for (const channel of route.connected) await channel.end();
  }

  /** The last watermark sent downstream; -Infinity before the first. */
  get watermark(): number {
    return this.lastWatermark;
  }

  /** The producer subtask this router belongs to. */
  get producer(): number {
    return this.subtask;
  }
}

interface Route {
  readonly connected: readonly Channel[];
  send(batch: ChangeBatch): void;
}

function makeRoute(target: OutputTarget, subtask: number, maxParallelism: number): Route {
  const channels = target.channels;
  const connected = channels.filter((c): c is Channel => c !== undefined);
  const partitioning = target.partitioning;
  if (partitioning.kind === 'broadcast') {
    return { connected, send: (batch) => connected.forEach((c) => c.push(batch)) };
  }
  if (partitioning.kind === 'rebalance') {
    let next = subtask % connected.length;
    return {
      connected,
      send: (batch) => {
        connected[next]!.push(batch);
        next = (next + 1) % connected.length;
      },
    };
  }
  if (partitioning.kind === 'hash' && channels.length > 1) {
    return new HashRoute(channels as readonly Channel[], keySelector(partitioning.keys), maxParallelism);
  }
  const only = partitioning.kind === 'forward' ? channels[subtask] : channels[0];
  if (only === undefined) throw new Error(`subtask ${subtask} has no channel on a ${partitioning.kind} edge`);
  return { connected, send: (batch) => only.push(batch) };
}

/** Splits each batch by the key group of each record's key. */
class HashRoute implements Route {
  private readonly buffers: ChangeBatch[];

  constructor(
    readonly connected: readonly Channel[],
    private readonly keyOf: KeySelector,
    private readonly maxParallelism: number,
  ) {
    this.buffers = connected.map(() => new ChangeBatch());
  }

  send(batch: ChangeBatch): void {
    const parallelism = this.connected.length;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const target = subtaskOfKeyGroup(keyGroupOf(this.keyOf(row), this.maxParallelism), parallelism, this.maxParallelism);
      this.buffers[target]!.push(batch.kinds[i]!, row);
    }
    for (let s = 0; s < parallelism; s++) {
      const buffer = this.buffers[s]!;
      if (buffer.size === 0) continue;
      this.connected[s]!.push(buffer);
      buffer.clear();
    }
  }
}
