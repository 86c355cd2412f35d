/**
 * Window join (Flink's WindowJoinOperator, inner) of two insert-only inputs windowed alike: both
 * are partitioned by the join keys, which include window_start and window_end, so each keyed-state
 * entry holds one key's rows of one window, per side. When the watermark (the minimum over both
 * inputs, as the task delivers it) passes the window's end, every left row is joined with every
 * right row of the entry, emitted as +I (left columns then right columns), and the entry is
 * cleared. Rows of a window that has fired are late: dropped and counted. A row with a NULL key
 * matches nothing and is not stored. A window finds its keys in a list per window end, where a key
 * is added by its first row on each side (a key listed twice finds its state cleared the second
 * time); the lists are rebuilt from keyed state on open.
 */
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { WindowJoinSpec } from '../../dataflow/job-graph.js';
import type { RowCombiner } from '../state/join-record-state-view.js';
import type { ListState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { DroppedRowCounter, LATE_ROW } from './dropped-row-counter.js';
import { hasNull, rowCombiner } from './join-rows.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state of each side: the rows of one key and window, in arrival order. */
export const WINDOW_JOIN_STATES = ['window-join.left', 'window-join.right'] as const;

/** How to read the rows of one input of the join. */
interface Side {
  readonly keys: readonly number[];
  readonly keyOf: KeySelector;
  readonly windowEnd: number;
}

/** The runtime implementation of a `window-join` job-graph node. */
export class WindowJoinOperator implements StreamOperator {
  private readonly sides: readonly [Side, Side];
  /** Each side's rows of the current key and window. */
  private rows!: readonly [ListState<Row>, ListState<Row>];
  private readonly out = new ChangeBatch();
  /** The keys with rows in each window, by window end (see the module comment). */
  private readonly keysByEnd = new Map<number, Key[]>();
  /** Window ends by their last millisecond. */
  private readonly timers = new WindowTimers();
  private readonly late = new DroppedRowCounter('window join', LATE_ROW);
  private context!: OperatorContext;
  private watermark = -Infinity;
  /** Built from the first joined pair's widths (the spec does not carry the inputs' arities). */
  private combine: RowCombiner | undefined;

  constructor(readonly spec: WindowJoinSpec) {
    const side = (keys: readonly number[], windowEnd: number): Side => ({ keys, keyOf: keySelector(keys), windowEnd });
    this.sides = [side(spec.leftKeys, spec.leftWindowEnd), side(spec.rightKeys, spec.rightWindowEnd)];
  }

  /** Rows dropped because their window had already fired. */
  get lateRows(): number {
    return this.late.count;
  }

  open(context: OperatorContext): void {
    this.context = context;
    const state = context.keyedState;
    this.rows = [state.getListState<Row>({ name: WINDOW_JOIN_STATES[0] }), state.getListState<Row>({ name: WINDOW_JOIN_STATES[1] })];
    this.sides.forEach((side, i) => {
      for (const [key, rows] of state.entriesOf<Row[]>({ name: WINDOW_JOIN_STATES[i]! })) this.list(rows[0]![side.windowEnd] as number, key);
    });
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const side = this.sides[input]!;
    const state = this.context.keyedState;
    const rows = this.rows[input]!;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const end = row[side.windowEnd] as number;
      if (end - 1 <= this.watermark) {
        this.late.drop(this.context);
        continue;
      }
      if (hasNull(row, side.keys)) continue;
      const key: Key = side.keyOf(row);
      state.setCurrentKey(key);
      if (rows.add(row)) this.list(end, key);
    }
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    const [left, right] = this.rows;
    this.timers.advance(watermark, (_, last) => {
      const keys = this.keysByEnd.get(last + 1)!;
      this.keysByEnd.delete(last + 1);
      for (const key of keys) {
        state.setCurrentKey(key);
        const lefts = left.get();
        const rights = right.get();
        if (lefts.length > 0 && rights.length > 0) {
          const combine = this.combinerFor(lefts[0]!, rights[0]!);
          for (let i = 0; i < lefts.length; i++) for (let j = 0; j < rights.length; j++) out.push(RowKind.INSERT, combine(lefts[i]!, rights[j]!));
        }
        left.clear();
        right.clear();
      }
    });
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark);
  }

  /** The output row builder for rows as wide as `left` and `right` (every row of a side is as wide as its schema). */
  private combinerFor(left: Row, right: Row): RowCombiner {
    if (this.combine === undefined) this.combine = rowCombiner(left.length, right.length);
    return this.combine;
  }

  /** Lists `key` under the window ending at `end`, registering the window when it is new. */
  private list(end: number, key: Key): void {
    let keys = this.keysByEnd.get(end);
    if (keys === undefined) {
      this.keysByEnd.set(end, (keys = []));
      this.timers.register(end - 1, end);
    }
    keys.push(key);
  }
}
