/**
 * Window join (Flink's WindowJoinOperator: inner, left, right or full) of two insert-only inputs
 * windowed alike: both are partitioned by the equated columns besides window_start and
 * window_end, and each key's keyed-state entry holds its open windows, each with the rows of both
 * sides, flat: `[end, leftRows, rightRows, end, leftRows, rightRows, ...]` (a key usually has one
 * or two open windows, so a scan finds one), written back after every change (a new row rewrites
 * the key's entry on a serialising backend). When the watermark (the minimum over both inputs, as
 * the task delivers it) passes a window's end, every left row of each key's window is joined with
 * every right row, emitted as +I (left columns then right columns); when one side has no rows,
 * an outer other side's rows are emitted padded with NULLs; the window is then removed from the
 * entry. Output is insert-only: a window is joined once. Rows of a window that has fired are late:
 * dropped and counted. A row with a NULL key matches nothing: it is not stored, and on an outer
 * side it is emitted padded at once. A window finds its keys in a list per window end, where a key
 * is added when its entry opens the window; the lists are rebuilt from keyed state on open.
 */
import { isOuterSide } from '../../common/join-type.js';
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { WindowJoinSpec } from '../../dataflow/job-graph.js';
import type { RowCombiner } from '../state/join-record-state-view.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { DroppedRowCounter, LATE_ROW } from './dropped-row-counter.js';
import { hasNull, nullPadder, rowCombiner } from './join-rows.js';
import { localWatermark } from '../../common/time-zone.js';
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
  /** The output row of an unmatched row of this side, when it is an outer side. */
  readonly pad: ((row: Row) => Row) | undefined;
}

/** The runtime implementation of a `window-join` job-graph node. */
export class WindowJoinOperator implements StreamOperator {
  private readonly sides: readonly [Side, Side];
  private windows!: ValueState<KeyWindows>;
  private readonly out = new ChangeBatch();
  /** Padded rows of NULL keys, emitted as they arrive. */
  private readonly unmatched = new ChangeBatch();
  /** The keys with rows in each window, by window end (see the module comment). */
  private readonly keysByEnd = new Map<number, Key[]>();
  /** Window ends by their last millisecond. */
  private readonly timers = new WindowTimers();
  private readonly late = new DroppedRowCounter('window join', LATE_ROW);
  private context!: OperatorContext;
  private watermark = -Infinity;
  private readonly combine: RowCombiner;

  constructor(readonly spec: WindowJoinSpec) {
    const { joinType, leftArity, rightArity } = spec;
    const side = (index: 0 | 1, keys: readonly number[], windowEnd: number): Side => ({
      keys,
      keyOf: keySelector(keys),
      windowEnd,
      pad: isOuterSide(joinType, index) ? nullPadder(index, leftArity, rightArity) : undefined,
    });
    this.sides = [side(0, spec.leftKeys, spec.leftWindowEnd), side(1, spec.rightKeys, spec.rightWindowEnd)];
    this.combine = rowCombiner(leftArity, rightArity);
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
    const unmatched = this.unmatched;
    unmatched.clear();
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const end = row[side.windowEnd] as number;
      if (end - 1 <= this.watermark) {
        this.late.drop(this.context);
        continue;
      }
      if (hasNull(row, side.keys)) {
        if (side.pad !== undefined) unmatched.push(RowKind.INSERT, side.pad(row));
        continue;
      }
      const key: Key = side.keyOf(row);
      state.setCurrentKey(key);
      let windows = this.windows.value();
      let at: number;
      if (windows === undefined) {
        windows = [end, [], []];
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
      this.windows.update(windows);
    }
    if (unmatched.size > 0) this.context.output.collect(unmatched);
  }

  processWatermark(watermark: number): void {
    // Window ends over a TIMESTAMP_LTZ time are wall-clock times of the zone: the watermark is read on that clock.
    const zone = this.spec.timeZone;
    this.watermark = zone === undefined ? watermark : localWatermark(watermark, zone);
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    this.timers.advance(this.watermark, (_, last) => {
      const end = last + 1;
      const keys = this.keysByEnd.get(end)!;
      this.keysByEnd.delete(end);
      for (const key of keys) {
        state.setCurrentKey(key);
        const windows = this.windows.value();
        const at = windows === undefined ? -1 : windowAt(windows, end);
        if (at < 0) continue;
        this.join(windows![at + 1] as Row[], windows![at + 2] as Row[], out);
        if (windows!.length === 3) this.windows.clear();
        else {
          windows!.splice(at, 3);
          this.windows.update(windows!);
        }
      }
    });
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark);
  }

  /** Appends the output of one key's window: every pair, or an outer side's rows padded when the other side has none. */
  private join(lefts: readonly Row[], rights: readonly Row[], out: ChangeBatch): void {
    if (lefts.length > 0 && rights.length > 0) {
      const combine = this.combine;
      for (let i = 0; i < lefts.length; i++) for (let j = 0; j < rights.length; j++) out.push(RowKind.INSERT, combine(lefts[i]!, rights[j]!));
      return;
    }
    const [rows, pad] = lefts.length > 0 ? [lefts, this.sides[0].pad] : [rights, this.sides[1].pad];
    if (pad !== undefined) for (let i = 0; i < rows.length; i++) out.push(RowKind.INSERT, pad(rows[i]!));
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
