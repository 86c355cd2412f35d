/**
 * Window join (Flink's WindowJoinOperator, inner) of two insert-only inputs windowed alike: both
 * are partitioned by the equated columns besides window_start and window_end, and each key's
 * keyed-state entry holds its open windows, each with the rows of both sides, flat:
 * `[end, leftRows, rightRows, end, leftRows, rightRows, ...]` (a key usually has one or two open
 * windows, so a scan finds one). When the watermark (the minimum over both inputs, as the task
 * delivers it) passes a window's end, every left row of each key's window is joined with every
 * right row, emitted as +I (left columns then right columns), and the window is removed from the
 * entry. Rows of a window that has fired are late: dropped and counted. A row with a NULL key
 * matches nothing and is not stored. A window finds its keys in a list per window end, where a
 * key is added when its entry opens the window; the lists are rebuilt from keyed state on open.
 */
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { WindowJoinSpec } from '../../dataflow/job-graph.js';
import type { RowCombiner } from '../state/join-record-state-view.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { DroppedRowCounter, LATE_ROW } from './dropped-row-counter.js';
import { hasNull, rowCombiner } from './join-rows.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state: a key's open windows with the rows of each side (see the module comment). */
export const WINDOW_JOIN_STATE = 'window-join.windows';

/** `[end, leftRows, rightRows, ...]` per key. */
type KeyWindows = unknown[];

/** How to read the rows of one input of the join. */
interface Side {
  readonly keys: readonly number[];
  readonly keyOf: KeySelector;
  readonly windowEnd: number;
}

/** The runtime implementation of a `window-join` job-graph node. */
export class WindowJoinOperator implements StreamOperator {
  private readonly sides: readonly [Side, Side];
  private windows!: ValueState<KeyWindows>;
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
    const descriptor = { name: WINDOW_JOIN_STATE };
    this.windows = context.keyedState.getValueState<KeyWindows>(descriptor);
    for (const [key, windows] of context.keyedState.entriesOf<KeyWindows>(descriptor)) {
      for (let at = 0; at < windows.length; at += 3) this.list(windows[at] as number, key);
    }
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const side = this.sides[input]!;
    const state = this.context.keyedState;
    const rowsAt = 1 + input;
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
      let windows = this.windows.value();
      let at: number;
      if (windows === undefined) {
        this.windows.update((windows = [end, [], []]));
        this.list(end, key);
        at = 0;
      } else {
        at = windowAt(windows, end);
        if (at < 0) {
          at = windows.length;
          windows.push(end, [], []);
          this.list(end, key);
        }
      }
      (windows[at + rowsAt] as Row[]).push(row);
    }
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    this.timers.advance(watermark, (_, last) => {
      const end = last + 1;
      const keys = this.keysByEnd.get(end)!;
      this.keysByEnd.delete(end);
      for (const key of keys) {
        state.setCurrentKey(key);
        const windows = this.windows.value();
        const at = windows === undefined ? -1 : windowAt(windows, end);
        if (at < 0) continue;
        const lefts = windows![at + 1] as Row[];
        const rights = windows![at + 2] as Row[];
        if (lefts.length > 0 && rights.length > 0) {
          const combine = this.combinerFor(lefts[0]!, rights[0]!);
          for (let i = 0; i < lefts.length; i++) for (let j = 0; j < rights.length; j++) out.push(RowKind.INSERT, combine(lefts[i]!, rights[j]!));
        }
        if (windows!.length === 3) this.windows.clear();
        else windows!.splice(at, 3);
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

/** Where the window ending at `end` starts in a key's windows, or -1. */
function windowAt(windows: KeyWindows, end: number): number {
  for (let at = 0; at < windows.length; at += 3) if (windows[at] === end) return at;
  return -1;
}
