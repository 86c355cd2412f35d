/**
 * Which stream sequences a NATS source reads: from the startup mode (or right after a restored
 * offset) to the bounded mode's last sequence, resolved against the stream as it is when the
 * job first starts. A restored offset keeps the end it was given then, so a job that restarts
 * after a crash reads exactly the messages its first run would have.
 */
import type { NatsSourceConfig } from './nats-options.js';
import type { StreamBounds } from './jetstream-stream.js';

/** Stream sequences `start` to `end` (inclusive; undefined = no end); empty when `start > end`. */
export interface ReadRange {
  readonly start: number;
  readonly end: number | undefined;
}

/** The range to read: after `resumed` when the job restores a checkpoint, else from the options. */
export function readRangeOf(config: NatsSourceConfig, bounds: StreamBounds, resumed: { readonly sequence: number; readonly end?: number } | undefined): ReadRange {
  if (resumed !== undefined) return { start: resumed.sequence + 1, end: resumed.end };
  const { startup, bound } = config;
  const start = startup.mode === 'earliest' ? 1 : startup.mode === 'latest' ? bounds.last + 1 : startup.sequence;
  const end = bound.mode === 'unbounded' ? undefined : bound.mode === 'latest' ? bounds.last : bound.sequence;
  return { start, end };
}
