/**
 * OVER aggregates over an insert-only input (Flink's OverAggregate: RowTime/ProcTime Rows/Range
 * Bounded/Unbounded PrecedingFunction). Each key's rows are processed in time order, each emitted
 * once (+I) followed by the aggregates over its frame; a RANGE frame takes every row of the same
 * time together, so peers share their results.
 *
 * `rowtime`: rows wait in keyed list state (a new row is a `ListState.add`) until the watermark
 * passes their time, then are processed in time order (ties in arrival order); as in Flink, a row
 * is late when its key has already processed rows of its time or a later one: it is dropped and
 * counted. `proctime`: rows are processed on arrival.
 *
 * Per key, the accumulator of the last frame and the rows it holds (for bounded frames; an
 * unbounded frame only accumulates) live in keyed state; rows are retracted from it as they leave
 * the frame, so state holds only what later frames can still need. LAG calls (Flink's streaming
 * LAG) read the last rows processed for the key, of which state keeps as many as the largest
 * offset; peers (a RANGE frame's rows of one time) share their aggregates, not their LAGs.
 */
import { timeMillisOf } from '../../common/epoch-nanos.js';
import { invariant } from '../../common/errors.js';
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { OverAggregateSpec } from '../../dataflow/job-graph.js';
import { generateSlidingAggregate, type SlidingAggregateProgram } from '../aggregates/sliding-aggregate-codegen.js';
import type { ListState, ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state holding the rows that wait for the watermark (rowtime only), in arrival order. */
export const OVER_PENDING_STATE = 'over-aggregate.pending';

/** A key's frame: the accumulator over the last processed row's frame, for a bounded frame the rows in it, and the last processed time. */
interface OverFrameState {
  readonly acc: unknown[];
  readonly rows: Row[];
  last: number;
  /** The last rows processed, oldest first, as many as the largest LAG offset (absent without LAG calls). */
  recent?: Row[];
}

/** The runtime implementation of an `over-aggregate` job-graph node in `rowtime` or `proctime` mode. */
export class OverAggregateOperator implements StreamOperator {
  private readonly partitionOf: KeySelector;
  private readonly program: SlidingAggregateProgram;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private pending!: ListState<Row>;
  private frames!: ValueState<OverFrameState>;
  private readonly timers = new WindowTimers();
  /** Rows dropped because their key had already processed their time (late). */
  lateRows = 0;
  /** The largest LAG offset (0 without LAG calls). */
  private readonly lagReach: number;

  /** Generates the aggregates' code; throws a WeirError when an aggregate call is not supported. */
  constructor(readonly spec: OverAggregateSpec) {
    invariant(spec.mode !== 'updating', 'an updating OVER aggregate runs in UpdatingOverAggregateOperator');
    this.partitionOf = keySelector(spec.partitionKeys);
    this.program = generateSlidingAggregate(spec.aggregates);
    this.lagReach = Math.max(0, ...(spec.lags ?? []).map((l) => l.offset));
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.pending = context.keyedState.getListState<Row>({ name: OVER_PENDING_STATE });
    this.frames = context.keyedState.getValueState<OverFrameState>({ name: 'over-aggregate.frame' });
    for (const [key, rows] of context.keyedState.entriesOf<Row[]>({ name: OVER_PENDING_STATE })) {
      for (const row of rows) this.timers.register(this.timeOf(row), key);
    }
  }

  processBatch(batch: ChangeBatch): void {
    const state = this.context.keyedState;
    if (this.spec.mode === 'proctime') {
      const out = this.out;
      out.clear();
      for (let i = 0; i < batch.size; i++) {
        const row = batch.rows[i]!;
        state.setCurrentKey(this.partitionOf(row));
        this.process([row], out);
      }
      if (out.size > 0) this.context.output.collect(out);
      return;
    }
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const time = timeMillisOf(row[this.spec.timeIndex]);
      const key = this.partitionOf(row);
      state.setCurrentKey(key);
      if (time === undefined || time <= (this.frames.value()?.last ?? -Infinity)) {
        this.late();
        continue;
      }
      this.pending.add(row);
      this.timers.register(time, key);
    }
  }

  processWatermark(watermark: number): void {
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    this.timers.advance(watermark, (key: Key) => {
      state.setCurrentKey(key);
      const rows = this.pending.get();
      const due = rows.filter((r) => this.timeOf(r) <= watermark);
      if (due.length === 0) return;
      const rest = rows.filter((r) => this.timeOf(r) > watermark);
      if (rest.length === 0) this.pending.clear();
      else this.pending.update(rest);
      this.process(due.sort((a, b) => this.timeOf(a) - this.timeOf(b)), out);
    });
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark);
  }

  /** Emits `rows` (the current key's, in time order, after every row processed before) with their aggregates. */
  private process(rows: readonly Row[], out: ChangeBatch): void {
    const { program } = this;
    const { unit, preceding } = this.spec.frame;
    const frame = this.frames.value() ?? { acc: program.create(), rows: [], last: -Infinity };
    for (let i = 0; i < rows.length; ) {
      const time = this.timeOf(rows[i]!);
      let end = i + 1;
      if (unit === 'RANGE') while (end < rows.length && this.timeOf(rows[end]!) === time) end++;
      for (let j = i; j < end; j++) {
        program.accumulate(frame.acc, rows[j]!);
        if (preceding !== null) frame.rows.push(rows[j]!);
      }
      if (preceding !== null) {
        let leaving = 0;
        if (unit === 'ROWS') leaving = frame.rows.length - (preceding + 1);
        else while (leaving < frame.rows.length && this.timeOf(frame.rows[leaving]!) < time - preceding) leaving++;
        for (const row of frame.rows.splice(0, Math.max(0, leaving))) program.retract(frame.acc, row);
      }
      const results = program.results(frame.acc);
      for (let j = i; j < end; j++) out.push(RowKind.INSERT, [...rows[j]!, ...(this.spec.lags === undefined ? results : this.withLags(results, rows[j]!, frame))]);
      frame.last = time;
      i = end;
    }
    this.frames.update(frame);
  }

  /** The output values of `row`: the aggregates' `results` with its LAG values at their positions; then `row` joins the recent rows. */
  private withLags(results: readonly unknown[], row: Row, frame: OverFrameState): unknown[] {
    const recent = (frame.recent ??= []);
    const values: unknown[] = [];
    let next = 0;
    for (const lag of this.spec.lags!) {
      while (values.length < lag.position) values.push(results[next++]);
      const before = lag.offset === 0 ? row : recent[recent.length - lag.offset];
      values.push(before !== undefined ? (before[lag.arg] ?? null) : lag.default === null ? null : (row[lag.default] ?? null));
    }
    while (next < results.length) values.push(results[next++]);
    recent.push(row);
    if (recent.length > this.lagReach) recent.shift();
    return values;
  }

  private timeOf(row: Row): number {
    return row[this.spec.timeIndex] as number;
  }

  private late(): void {
    if (this.lateRows++ === 0) this.context.warn(`over aggregate ${this.context.operatorId}: dropped a row older than rows of its key already emitted (late); further late rows are counted`);
  }
}
