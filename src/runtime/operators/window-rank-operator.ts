/**
 * Window Top-N (Flink's WindowRankOperator with ROW_NUMBER) over an insert-only windowed input:
 * the partition keys include the window's columns, so each keyed-state entry is one partition of
 * one window, holding its first `limit` rows in order (ties keep arrival order). When the
 * watermark passes the window's end, the rows numbered from `rankStart` on are emitted once, as
 * +I followed by their row number (unless `outputRankNumber` is false), and the entry is cleared. Rows arriving for a window that has fired are late: dropped
 * and counted. Timers are registered again from keyed state on open, so a restore resumes them.
 */
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { WindowRankSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { DroppedRowCounter, LATE_ROW } from './dropped-row-counter.js';
import { rowOrder } from './row-order.js';
import { localWatermark } from '../../common/time-zone.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state: the ordered first rows of one partition of one window. */
export const WINDOW_RANK_STATE = 'window-rank.top';

/** The runtime implementation of a `window-rank` job-graph node. */
export class WindowRankOperator implements StreamOperator {
  private readonly partitionOf: KeySelector;
  private readonly before: (a: Row, b: Row) => boolean;
  private readonly out = new ChangeBatch();
  private readonly timers = new WindowTimers();
  private readonly late = new DroppedRowCounter('window rank', LATE_ROW);
  private context!: OperatorContext;
  private top!: ValueState<Row[]>;
  private watermark = -Infinity;

  constructor(readonly spec: WindowRankSpec) {
    this.partitionOf = keySelector(spec.partitionKeys);
    this.before = rowOrder(spec.orderKeys);
  }

  /** Rows dropped because their window had already fired. */
  get lateRows(): number {
    return this.late.count;
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.top = context.keyedState.getValueState<Row[]>({ name: WINDOW_RANK_STATE });
    for (const [key, rows] of context.keyedState.entriesOf<Row[]>({ name: WINDOW_RANK_STATE })) this.schedule(key, rows[0]!);
  }

  processBatch(batch: ChangeBatch): void {
    const state = this.context.keyedState;
    const { limit } = this.spec;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      if (this.endOf(row) - 1 <= this.watermark) {
        this.late.drop(this.context);
        continue;
      }
      const key = this.partitionOf(row);
      state.setCurrentKey(key);
      const rows = this.top.value() ?? [];
      let position = rows.length;
      while (position > 0 && this.before(row, rows[position - 1]!)) position--;
      if (position >= limit) continue;
      rows.splice(position, 0, row);
      if (rows.length > limit) rows.pop();
      this.top.update(rows);
      this.schedule(key, row);
    }
  }

  processWatermark(watermark: number): void {
    // Window ends over a TIMESTAMP_LTZ time are wall-clock times of the zone: the watermark is read on that clock.
    const zone = this.spec.timeZone;
    this.watermark = zone === undefined ? watermark : localWatermark(watermark, zone);
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    const start = Math.max(1, this.spec.rankStart ?? 1);
    const numbered = this.spec.outputRankNumber !== false;
    this.timers.advance(this.watermark, (key) => {
      state.setCurrentKey(key);
      const rows = this.top.value() ?? [];
      for (let i = start - 1; i < rows.length; i++) out.push(RowKind.INSERT, numbered ? [...rows[i]!, i + 1] : rows[i]!);
      this.top.clear();
    });
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark);
  }

  private endOf(row: Row): number {
    return row[this.spec.windowEnd] as number;
  }

  private schedule(key: Key, row: Row): void {
    this.timers.register(this.endOf(row) - 1, key);
  }
}
