/**
 * Window aggregation (Flink's WindowAggregate over window TVFs) for insert-only input: each row
 * is expanded into one row per window it falls into (`row ++ [window_start, window_end]`), the
 * expanded rows are folded by an incremental group aggregation keyed by the grouping columns
 * (window columns included), and each group's latest result waits in keyed state until the
 * watermark passes the end of its window; then it is emitted once as +I and its state cleared.
 * Rows for windows that have already fired are late: dropped and counted, never mixed in.
 * Over processing time (`spec.processingTime`) a row falls into the windows of the operator's
 * clock when it arrives, and windows fire on processing-time timers instead of watermarks; the
 * end of input (the final watermark) fires every window still open, as Flink does.
 */
import { invariant } from '../../common/errors.js';
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import { forEachWindow, type AlignedWindowSpec } from '../../common/window-spec.js';
import type { WindowAggregateSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { GROUP_ACCUMULATOR_STATE, GroupAggregateOperator } from './group-aggregate-operator.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state holding each group's latest result until its window fires. */
export const WINDOW_RESULT_STATE = 'window-aggregate.result';

/** The runtime implementation of a `window-aggregate` job-graph node over TUMBLE, HOP or CUMULATE windows. */
export class WindowAggregateOperator implements StreamOperator {
  private readonly inner: GroupAggregateOperator;
  private readonly expanded = new ChangeBatch();
  private readonly out = new ChangeBatch();
  private readonly window: AlignedWindowSpec;
  private readonly resultKey: KeySelector;
  /** Where `window_end` is in a result row. */
  private readonly endColumn: number;
  private context!: OperatorContext;
  private results!: ValueState<Row>;
  private accumulators!: ValueState<unknown>;
  /** Groups waiting for their window to fire, at the window's last millisecond (derived from keyed state). */
  private readonly timers = new WindowTimers();
  /** Every window ending at or before this time has fired (the watermark, or the clock's last timer). */
  private firedUntil = -Infinity;
  /** Processing time only: the time the scheduled timer fires, and how to cancel it. */
  private scheduled: { time: number; cancel: () => void } | undefined;
  /** Rows dropped because their window had already fired. */
  lateRows = 0;

  constructor(readonly spec: WindowAggregateSpec) {
    invariant(spec.window.kind !== 'SESSION', 'session windows run in SessionWindowAggregateOperator');
    this.window = spec.window;
    this.inner = new GroupAggregateOperator({ kind: 'group-aggregate', keys: spec.keys, aggregates: spec.aggregates, inputRetracts: false, emitUpdateBefore: false });
    this.resultKey = keySelector(spec.keys.map((_, i) => i));
    const windowEnd = spec.timeIndex + 2;
    this.endColumn = spec.keys.indexOf(windowEnd);
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.results = context.keyedState.getValueState<Row>({ name: WINDOW_RESULT_STATE });
    this.accumulators = context.keyedState.getValueState<unknown>({ name: GROUP_ACCUMULATOR_STATE });
    this.inner.open({ ...context, output: { collect: (batch) => this.remember(batch), emitWatermark: () => {} } });
    for (const [key, row] of context.keyedState.entriesOf<Row>({ name: WINDOW_RESULT_STATE })) this.index(key, row);
    this.schedule();
  }

  processBatch(batch: ChangeBatch): void {
    const expanded = this.expanded;
    expanded.clear();
    const { window } = this;
    const { timeIndex, processingTime } = this.spec;
    const now = processingTime === true ? this.context.processingTime.now() : undefined;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const time = now ?? row[timeIndex];
      if (typeof time !== 'number') continue;
      forEachWindow(window, time, (start, end) => {
        if (end - 1 <= this.firedUntil) this.late();
        else expanded.push(RowKind.INSERT, [...row, start, end]);
      });
    }
    if (expanded.size > 0) this.inner.processBatch(expanded);
    this.schedule();
  }

  processWatermark(watermark: number): void {
    if (this.spec.processingTime !== true || watermark === Infinity) this.fire(watermark);
    this.context.output.emitWatermark(watermark);
  }

  close(): void {
    this.scheduled?.cancel();
    this.scheduled = undefined;
  }

  /** Emits and clears every window whose last millisecond is at or before `time`. */
  private fire(time: number): void {
    this.firedUntil = time;
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    this.timers.advance(time, (key) => {
      state.setCurrentKey(key);
      const row = this.results.value();
      if (row !== undefined) out.push(RowKind.INSERT, row);
      this.results.clear();
      this.accumulators.clear();
    });
    if (out.size > 0) this.context.output.collect(out);
  }

  /** Processing time only: keeps one timer registered, at the earliest window end. */
  private schedule(): void {
    if (this.spec.processingTime !== true) return;
    const next = this.timers.nextTime();
    if (next === undefined || next === this.scheduled?.time) return;
    this.scheduled?.cancel();
    const cancel = this.context.processingTime.registerTimer(next, (time) => {
      this.scheduled = undefined;
      this.fire(time);
      this.schedule();
    });
    this.scheduled = { time: next, cancel };
  }

  private remember(batch: ChangeBatch): void {
    const state = this.context.keyedState;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const key = this.resultKey(row);
      state.setCurrentKey(key);
      this.results.update(row);
      this.index(key, row);
    }
  }

  private index(key: Key, row: Row): void {
    this.timers.register((row[this.endColumn] as number) - 1, key);
  }

  private late(): void {
    if (this.lateRows++ === 0) this.context.warn(`window aggregate ${this.context.operatorId}: dropped a row whose window had already fired (late); further late rows are counted`);
  }
}
