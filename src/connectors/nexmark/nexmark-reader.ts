/**
 * The nexmark source reader: one split per subtask (GENERATOR.md §2), emitting its events in order
 * as inserts. Its offset is the number of events emitted (plus the resolved base time when
 * `base-time` is `now`), which is all it takes to continue exactly: every event is a pure function
 * of its position.
 */
import { WeirError } from '../../common/errors.js';
import type { ChangeBatch } from '../../common/row.js';
import type { PollStatus, SourceContext, SourceReader } from '../../runtime/source-reader.js';
import { NexmarkGenerator, splitOf } from './nexmark-generator.js';
import type { NexmarkConfig } from './nexmark-options.js';

/** The clocks a reader reads, in milliseconds; tests supply their own. */
export interface NexmarkClock {
  /** Epoch milliseconds, to resolve `base-time` = `now`. */
  wall(): number;
  /** A monotonic clock, to pace emission when `max-emit-speed` is false. */
  monotonic(): number;
}

const SYSTEM_CLOCK: NexmarkClock = { wall: () => Date.now(), monotonic: () => performance.now() };

/**
 * The offset of a reader: the events it has emitted, as a number, or `{ events, baseTime }` when
 * the base time was taken from the wall clock (so that a restore continues the same time line).
 */
export type NexmarkOffset = number | { readonly events: number; readonly baseTime: number };

/**
 * Reads one split of a nexmark table. With `max-emit-speed` false, emission is paced so that an
 * event whose event time is t ms after the first one's is not emitted before t ms have passed on
 * the wall clock since `open`; after a restore the pacing restarts at the restored event.
 */
export class NexmarkReader implements SourceReader {
  readonly #config: NexmarkConfig;
  readonly #clock: NexmarkClock;
  #emitted = 0;
  #baseTime: number | undefined;
  #limit = 0;
  #paceStartClock = 0;
  #paceStartEventTime = 0;
  #generator: NexmarkGenerator | undefined;

  constructor(config: NexmarkConfig, clock: NexmarkClock = SYSTEM_CLOCK) {
    this.#config = config;
    this.#clock = clock;
  }

  /** Continues after an offset from {@link currentOffset}. */
  seek(offset: unknown): void {
    const events = typeof offset === 'object' && offset !== null ? (offset as { events?: unknown }).events : offset;
    const baseTime = typeof offset === 'object' && offset !== null ? (offset as { baseTime?: unknown }).baseTime : undefined;
    if (typeof events !== 'number' || !Number.isSafeInteger(events) || events < 0 || (baseTime !== undefined && !Number.isSafeInteger(baseTime))) {
      throw new WeirError('CONNECTOR_ERROR', `nexmark cannot resume from offset ${JSON.stringify(offset)}: expected a count of events, or { events, baseTime }`);
    }
    this.#emitted = events;
    if (typeof baseTime === 'number' && this.#config.baseTime === 'now') this.#baseTime = baseTime;
  }

  async open(context: SourceContext): Promise<void> {
    const split = splitOf(this.#config, context.subtask, context.parallelism);
    const configured = this.#config.baseTime;
    const baseTime = configured !== 'now' ? configured : (this.#baseTime ?? Math.floor(this.#clock.wall()));
    this.#baseTime = baseTime;
    this.#limit = split.maxEvents;
    const generator = new NexmarkGenerator(this.#config, split, baseTime);
    this.#generator = generator;
    this.#paceStartClock = this.#clock.monotonic();
    this.#paceStartEventTime = generator.timestampOf(this.#emitted - 1);
  }

  /**
   * Appends up to `maxRecords` events. 'end' after the split's last event ('idle' from then on with
   * `keep-alive`); 'idle' when pacing holds back the next event; 'more' otherwise.
   */
  poll(output: ChangeBatch, maxRecords: number): PollStatus {
    const generator = this.#generator;
    if (generator === undefined) throw new WeirError('INTERNAL_ERROR', 'nexmark reader polled before open');
    const remaining = this.#limit - this.#emitted;
    if (remaining <= 0) return this.#config.keepAlive ? 'idle' : 'end';
    const wanted = Math.min(maxRecords, remaining);
    const count = this.#config.maxEmitSpeed ? wanted : this.#due(generator, wanted);
    generator.fill(output, this.#emitted, count);
    this.#emitted += count;
    if (this.#emitted >= this.#limit) return this.#config.keepAlive ? 'idle' : 'end';
    return count < wanted ? 'idle' : 'more';
  }

  /** The events emitted so far (with the base time when it came from the wall clock). */
  currentOffset(): NexmarkOffset {
    if (this.#config.baseTime === 'now' && this.#baseTime !== undefined) return { events: this.#emitted, baseTime: this.#baseTime };
    return this.#emitted;
  }

  /** Events emitted of this split's share; the total only when `events.num` bounds it. */
  progress(): { done: number; total?: number } {
    return this.#config.eventsNum > 0 || this.#config.stopAt >= 0 ? { done: this.#emitted, total: this.#limit } : { done: this.#emitted };
  }

  async close(): Promise<void> {
    this.#generator = undefined;
  }

  /** How many of the next `wanted` events are due by the wall clock. */
  #due(generator: NexmarkGenerator, wanted: number): number {
    const horizon = this.#paceStartEventTime + (this.#clock.monotonic() - this.#paceStartClock);
    let due = 0;
    while (due < wanted && generator.timestampOf(this.#emitted + due) <= horizon) due++;
    return due;
  }
}
