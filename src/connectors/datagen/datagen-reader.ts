/**
 * The datagen source reader. Subtask s of p produces the global rows s, s + p, s + 2p, ... so the
 * union over subtasks is exactly the rows a single reader produces, and every row is a pure
 * function of its global index (see field-generator.ts). The offset is the number of rows this
 * reader has emitted, which determines the next global row.
 */
import { WeirError } from '../../common/errors.js';
import { RowKind } from '../../common/row-kind.js';
import type { ChangeBatch, Row } from '../../common/row.js';
import type { PollStatus, SourceContext, SourceReader } from '../../runtime/source-reader.js';
import type { DatagenConfig } from './datagen-options.js';
import { createRowGenerator } from './field-generator.js';

/** A monotonic clock in milliseconds; `performance.now` unless a test supplies its own. */
export type Clock = () => number;

/**
 * Reads one subtask's share of a datagen table. Emits insert-only records; never faster than its
 * share of `rows-per-second` (after a stall it may catch up by at most one second's worth), and
 * ends after its share of the table's rows when the table is bounded.
 */
export class DatagenReader implements SourceReader {
  readonly #config: DatagenConfig;
  readonly #clock: Clock;
  #emitted = 0;
  #subtask = 0;
  #parallelism = 1;
  #limit = Infinity;
  #rowsPerMs = 0;
  #burst = 1;
  #windowStart = 0;
  #windowEmitted = 0;
  #generate: ((row: number) => Row) | undefined;

  constructor(config: DatagenConfig, clock: Clock = () => performance.now()) {
    this.#config = config;
    this.#clock = clock;
  }

  /** Continues after `offset` rows of this subtask's share (a non-negative integer, from {@link currentOffset}). */
  seek(offset: unknown): void {
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
      throw new WeirError('CONNECTOR_ERROR', `datagen cannot resume from offset ${JSON.stringify(offset)}: expected a non-negative integer`);
    }
    this.#emitted = offset;
  }

  async open(context: SourceContext): Promise<void> {
    this.#subtask = context.subtask;
    this.#parallelism = context.parallelism;
    const total = this.#config.totalRows;
    this.#limit = total === undefined ? Infinity : shareOf(total, context.subtask, context.parallelism);
    const rowsPerSecond = this.#config.rowsPerSecond / context.parallelism;
    this.#rowsPerMs = rowsPerSecond / 1000;
    this.#burst = Math.max(1, Math.floor(rowsPerSecond));
    this.#windowStart = this.#clock();
    this.#windowEmitted = 0;
    this.#generate = createRowGenerator(this.#config);
  }

  /**
   * Appends up to `maxRecords` rows. Returns 'end' once the share is complete, 'idle' when the rate
   * limit stopped it (the rows appended so far are valid), 'more' otherwise.
   */
  poll(output: ChangeBatch, maxRecords: number): PollStatus {
    const generate = this.#generate;
    if (generate === undefined) throw new WeirError('INTERNAL_ERROR', 'datagen reader polled before open');
    const remaining = this.#limit - this.#emitted;
    if (remaining <= 0) return 'end';
    let count = Math.min(maxRecords, remaining);
    const allowed = this.#allowance();
    const limited = allowed < count;
    if (limited) count = allowed;

    const step = this.#parallelism;
    let row = this.#subtask + this.#emitted * step;
    for (let i = 0; i < count; i++, row += step) output.push(RowKind.INSERT, generate(row));
    this.#emitted += count;
    this.#windowEmitted += count;

    if (this.#emitted >= this.#limit) return 'end';
    return limited ? 'idle' : 'more';
  }

  /** The number of rows this reader has emitted (including those before a {@link seek}). */
  currentOffset(): number {
    return this.#emitted;
  }

  /** Rows emitted of this subtask's share; the total when `number-of-rows` (or a sequence) bounds it. */
  progress(): { done: number; total?: number } {
    return Number.isFinite(this.#limit) ? { done: this.#emitted, total: this.#limit } : { done: this.#emitted };
  }

  async close(): Promise<void> {
    this.#generate = undefined;
  }

  /** How many rows may be emitted now without exceeding the rate. */
  #allowance(): number {
    const now = this.#clock();
    const due = Math.floor((now - this.#windowStart) * this.#rowsPerMs) + 1;
    const allowance = due - this.#windowEmitted;
    if (allowance <= this.#burst) return allowance;
    this.#windowStart = now;
    this.#windowEmitted = 1 - this.#burst;
    return this.#burst;
  }
}

/** How many of the global rows [0, total) fall to `subtask` (those congruent to it modulo `parallelism`). */
export function shareOf(total: number, subtask: number, parallelism: number): number {
  return total > subtask ? Math.floor((total - 1 - subtask) / parallelism) + 1 : 0;
}
