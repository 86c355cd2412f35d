/**
 * Window aggregation (Flink's WindowAggregate over window TVFs) for insert-only input, sharing
 * slices as Flink does: a row is folded into one accumulator, that of its key and its slice (see
 * WindowSlices), instead of being copied into every window it falls into. When the watermark
 * passes the end of a window, the accumulators of the window's slices are merged into the key's
 * result, emitted once as +I; slices no later window holds are then dropped (CUMULATE merges the
 * remaining ones into one, since every later window of the cycle holds them all). A window finds
 * its keys through the slices it holds: a key is listed once per slice it has a pane in, and the
 * slice once per window holding it, so that no per-key timer is registered again for every window.
 *
 * Aggregates that read window_start or window_end cannot share slices: then every window is a
 * pane of its own, and a row is folded into the pane of each of its windows with the window's
 * bounds appended.
 *
 * Over processing time (`spec.processingTime`) a row falls into the windows of the operator's
 * clock when it arrives, and windows fire on processing-time timers instead of watermarks; the
 * end of input (the final watermark) fires every window still open, as Flink does.
 *
 * Over a TIMESTAMP_LTZ time in a zone (`spec.timeZone`), windows are laid on the zone's wall
 * clock, as Flink's: a row's time is read as its wall-clock time, window bounds are wall-clock
 * times, and a watermark closes the windows whose every instant it has passed (localWatermark).
 *
 * Rows are late for windows that have fired: a row is counted once per such window (`lateRows`),
 * dropped when all its windows have fired, and otherwise counted only in the windows still open.
 *
 * State: per key (the grouping columns besides the window bounds, which the input is partitioned
 * by), one keyed value `[firedEnd, ...key values, ...panes]`: `firedEnd` is the end of the key's
 * last fired window, so that the timers registered again on restore never fire a window twice;
 * the panes are pairs of a slice's end (a window's, when windows are panes) and its accumulator
 * (MergingAggregateProgram's layout from index 0), flat in the record to keep a key small. The
 * value is written back after every change (the state contract): once per run of rows of one key
 * in a batch, and when a window of the key fires.
 */
import { timeMillisOf } from '../../common/epoch-nanos.js';
import { invariant } from '../../common/errors.js';
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import { lastInstantAtOrBefore, localOf, localWatermark } from '../../common/time-zone.js';
import { forEachWindow, type AlignedWindowSpec } from '../../common/window-spec.js';
import type { WindowAggregateSpec } from '../../dataflow/job-graph.js';
import { generateMergingAggregate, type MergingAggregateProgram, type OutputColumn } from '../aggregates/merging-aggregate-codegen.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { WindowTimers } from './window-timers.js';
import { windowSlices, type WindowSlices } from './window-slices.js';

/** Keyed state holding each key's open slices (or windows) and the end of its last fired window. */
export const WINDOW_STATE = 'window-aggregate.panes';

/** A key's state: `[firedEnd, ...key values, ...(pane end, pane) pairs]` (see the module comment). */
type WindowGroup = unknown[];
/** An accumulator: `[rowCount, ...aggregate slots]`. */
type Pane = unknown[];
/**
 * The keys with a pane in one slice; with a backend that shares its values, also each key's group
 * as stored (so that firing looks nothing up; a group since cleared has `firedEnd` Infinity).
 */
interface SliceMembers {
  readonly keys: Key[];
  readonly groups: WindowGroup[];
}

const FIRED = 0;
const KEY_VALUES = 1;

/** The runtime implementation of a `window-aggregate` job-graph node over TUMBLE, HOP or CUMULATE windows. */
export class WindowAggregateOperator implements StreamOperator {
  private readonly window: AlignedWindowSpec;
  /** The zone whose wall clock the windows are laid on (a TIMESTAMP_LTZ time outside UTC); times, window bounds and `watermark` are then wall-clock times. */
  private readonly zone: string | undefined;
  private readonly slices: WindowSlices;
  /** Whether every window is its own pane (an aggregate reads the window bounds). */
  private readonly perWindow: boolean;
  private readonly keyColumns: readonly number[];
  private readonly keyOf: KeySelector;
  /** Where the panes start in a WindowGroup. */
  private readonly panesStart: number;
  private readonly program: MergingAggregateProgram;
  private readonly emptyPane: Pane;
  /** A new key's state, as one array literal: never fired, the row's key values, one pane. */
  private readonly newGroup: (row: Row, end: number, pane: Pane) => WindowGroup;
  private readonly out = new ChangeBatch();
  /**
   * The keys with a pane ending at each slice end (each window end, when windows are panes), until
   * the slice's last window has fired; derived from keyed state. A key may be listed twice (after
   * a restore, or when CUMULATE collapsed its pane and a late row opened it again): `fire` skips a
   * window the key has already emitted, and a key whose state was cleared.
   */
  private readonly slicesByEnd = new Map<number, SliceMembers>();
  /** Slice ends by the last millisecond of each window holding the slice, so that a window finds its slices. */
  private readonly timers = new WindowTimers();
  private context!: OperatorContext;
  private groups!: ValueState<WindowGroup>;
  /** The backend hands out its stored groups (KeyedStateBackend.sharesValues): changed in place, stored once when new. */
  private shared = false;
  /** During a batch: the key whose group `fold` last read, and that group, to be written back when the key changes and at the batch's end. */
  private openKey: Key | undefined;
  private openGroup: WindowGroup | undefined;
  /** Every window ending at or before this time has fired (the watermark, or the clock's last timer). */
  private watermark = -Infinity;
  /** Processing time only: the time the scheduled timer fires, and how to cancel it. */
  private scheduled: { time: number; cancel: () => void } | undefined;
  /** Rows dropped because their window had already fired, counted once per window. */
  lateRows = 0;

  /** Generates the operator's aggregate code; throws a WeirError when an aggregate call is not supported. */
  constructor(readonly spec: WindowAggregateSpec) {
    invariant(spec.window.kind !== 'SESSION', 'session windows run in SessionWindowAggregateOperator');
    const { timeIndex } = spec;
    this.window = spec.window;
    this.zone = spec.timeZone;
    this.slices = windowSlices(spec.window);
    this.perWindow = spec.aggregates.some((a) => a.args.some((i) => i > timeIndex) || (a.filter !== null && a.filter > timeIndex));
    this.keyColumns = spec.keys.filter((k) => k < timeIndex);
    this.keyOf = keySelector(this.keyColumns);
    this.panesStart = KEY_VALUES + this.keyColumns.length;
    const columns = spec.keys.map((k): OutputColumn => (k === timeIndex + 1 ? 'window_start' : k === timeIndex + 2 ? 'window_end' : KEY_VALUES + this.keyColumns.indexOf(k)));
    this.program = generateMergingAggregate(spec.aggregates, 0, columns);
    this.emptyPane = [0, ...new Array<null>(this.program.slots - 1).fill(null)];
    this.newGroup = new Function('row', 'end', 'pane', `return [-Infinity, ${this.keyColumns.map((k) => `row[${k}], `).join('')}end, pane];`) as typeof this.newGroup;
  }

  open(context: OperatorContext): void {
    this.context = context;
    const descriptor = { name: WINDOW_STATE };
    this.groups = context.keyedState.getValueState<WindowGroup>(descriptor);
    this.shared = context.keyedState.sharesValues;
    for (const [key, group] of context.keyedState.entriesOf<WindowGroup>(descriptor)) {
      for (let i = this.panesStart; i < group.length; i += 2) this.index(key, group[i] as number, group);
    }
    this.schedule();
  }

  processBatch(batch: ChangeBatch): void {
    const { timeIndex, processingTime } = this.spec;
    const slices = this.slices;
    const now = processingTime === true ? this.context.processingTime.now() : undefined;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      const instant = now ?? timeMillisOf(row[timeIndex]);
      if (instant === undefined) continue;
      const time = this.zone === undefined ? instant : localOf(instant, this.zone);
      if (this.perWindow) {
        forEachWindow(this.window, time, (start, end) => {
          if (end - 1 <= this.watermark) this.late();
          else this.fold([...row, start, end], end);
        });
        continue;
      }
      const slice = slices.sliceEnd(time);
      if (slices.firstWindowEnd(slice) - 1 <= this.watermark && this.countLate(slice)) continue;
      this.fold(row, slice);
    }
    this.writeBack();
    this.schedule();
  }

  processWatermark(watermark: number): void {
    if (this.spec.processingTime !== true || watermark === Infinity) this.fireUpTo(this.wallClock(watermark));
    this.context.output.emitWatermark(watermark);
  }

  /** The watermark (or processing time) `instant` in the windows' time: the zone's wall clock when they have one (see localWatermark). */
  private wallClock(instant: number): number {
    return this.zone === undefined ? instant : localWatermark(instant, this.zone);
  }

  close(): void {
    this.scheduled?.cancel();
    this.scheduled = undefined;
  }

  /** Processing time only: keeps one timer registered, at the earliest window end. */
  private schedule(): void {
    if (this.spec.processingTime !== true) return;
    const next = this.timers.nextTime();
    if (next === undefined || next === this.scheduled?.time) return;
    this.scheduled?.cancel();
    const at = this.zone === undefined ? next : lastInstantAtOrBefore(next, this.zone);
    const cancel = this.context.processingTime.registerTimer(at, (time) => {
      this.scheduled = undefined;
      this.fireUpTo(this.wallClock(time));
      this.schedule();
    });
    this.scheduled = { time: next, cancel };
  }

  /**
   * Emits every window whose last millisecond is at or before `time`, by ascending end, one batch
   * per window end (so that the batch, reused, stays as large as a window's output); a window's
   * keys by slice, each once.
   */
  private fireUpTo(time: number): void {
    this.watermark = time;
    const out = this.out;
    out.clear();
    let batchEnd = NaN;
    this.timers.advance(time, (slice, last) => {
      const end = last + 1;
      if (end !== batchEnd) {
        this.flush();
        batchEnd = end;
      }
      const members = this.slicesByEnd.get(slice as number);
      if (members === undefined) return;
      const { keys, groups } = members;
      if (this.shared) for (let i = 0; i < keys.length; i++) this.fire(keys[i]!, end, out, groups[i]);
      else for (let i = 0; i < keys.length; i++) this.fire(keys[i]!, end, out, undefined);
      if (end >= this.lastWindowEnd(slice as number)) this.slicesByEnd.delete(slice as number);
    });
    this.flush();
  }

  /** Sends what `out` holds downstream, then empties it. */
  private flush(): void {
    if (this.out.size === 0) return;
    this.context.output.collect(this.out);
    this.out.clear();
  }

  /**
   * Folds `row` into the pane ending at `end` of the row's key, listing the key under that slice
   * when the pane is new. The key's group stays open (not yet written back) while the next rows
   * are of the same key; see `writeBack`. A new group is stored at once when the backend shares
   * values (and is then only changed in place).
   */
  private fold(row: Row, end: number): void {
    const key = this.keyOf(row);
    let group: WindowGroup | undefined;
    if (key === this.openKey && this.openGroup !== undefined) group = this.openGroup;
    else {
      this.writeBack();
      this.context.keyedState.setCurrentKey(key);
      group = this.groups.value();
    }
    let pane: Pane | undefined;
    if (group === undefined) {
      pane = this.emptyPane.slice();
      group = this.newGroup(row, end, pane);
      if (this.shared) this.groups.update(group);
      this.index(key, end, group);
    } else if ((pane = this.paneOf(group, end)) === undefined) {
      pane = this.emptyPane.slice();
      group.push(end, pane);
      this.index(key, end, group);
    }
    this.program.accumulate(pane, row);
    this.openKey = key;
    this.openGroup = group;
  }

  /** Writes the group `fold` has open back to state (the backend's current key is still its key); a shared group is already there. */
  private writeBack(): void {
    const group = this.openGroup;
    if (group === undefined) return;
    if (!this.shared) this.groups.update(group);
    this.openKey = undefined;
    this.openGroup = undefined;
  }

  /** Lists `key` (and, when shared, its group) under the slice ending at `slice`; a new slice registers its windows that have not fired. */
  private index(key: Key, slice: number, group: WindowGroup): void {
    let members = this.slicesByEnd.get(slice);
    if (members === undefined) {
      this.slicesByEnd.set(slice, (members = { keys: [], groups: [] }));
      const last = this.lastWindowEnd(slice);
      for (let end = this.perWindow ? slice : this.slices.firstWindowEnd(slice); end <= last; end = this.slices.nextWindowEnd(end)) {
        if (end - 1 > this.watermark) this.timers.register(end - 1, slice);
      }
    }
    members.keys.push(key);
    if (this.shared) members.groups.push(group);
  }

  /** The end of the last window holding the slice ending at `slice` (the window itself when windows are panes). */
  private lastWindowEnd(slice: number): number {
    return this.perWindow ? slice : this.slices.lastWindowEnd(slice);
  }

  /**
   * Emits the window ending at `end` of `key` unless it already has (or has no state), and drops
   * the panes no later window holds. `listed` is the key's group as indexed when the backend
   * shares values (the key is still selected first: change tracking and snapshots see the change).
   */
  private fire(key: Key, end: number, out: ChangeBatch, listed: WindowGroup | undefined): void {
    this.context.keyedState.setCurrentKey(key);
    const group = listed ?? this.groups.value();
    if (group === undefined || (group[FIRED] as number) >= end) return;
    group[FIRED] = end;
    const start = this.slices.windowStart(end);
    const result = this.perWindow ? this.paneOf(group, end) : this.merged(group, start, end);
    const collapse = !this.perWindow && this.slices.collapsible && result !== undefined && this.slices.lastWindowEnd(end) > end;
    let kept = this.panesStart;
    for (let i = this.panesStart; i < group.length; i += 2) {
      const paneEnd = group[i] as number;
      const keep = this.perWindow ? paneEnd !== end : paneEnd > end || (!collapse && this.slices.lastWindowEnd(paneEnd) > end);
      if (!keep) continue;
      group[kept] = paneEnd;
      group[kept + 1] = group[i + 1];
      kept += 2;
    }
    group.length = kept;
    if (collapse) group.push(end, result);
    if (result !== undefined && (result[0] as number) > 0) out.push(RowKind.INSERT, this.program.row(group, result, start, end));
    if (group.length > this.panesStart) {
      if (!this.shared) this.groups.update(group);
      return;
    }
    // A listed reference to this group elsewhere must not fire it again.
    group[FIRED] = Infinity;
    this.groups.clear();
  }

  /** The pane ending at `end` of a key, if it has one. */
  private paneOf(group: WindowGroup, end: number): Pane | undefined {
    for (let i = this.panesStart; i < group.length; i += 2) if (group[i] === end) return group[i + 1] as Pane;
    return undefined;
  }

  /** The accumulator of the window `[start, end)`: its only slice, or a new merge of its slices; undefined when it has none. */
  private merged(group: WindowGroup, start: number, end: number): Pane | undefined {
    let result: Pane | undefined;
    let copied = false;
    for (let i = this.panesStart; i < group.length; i += 2) {
      const slice = group[i] as number;
      if (slice <= start || slice > end) continue;
      const pane = group[i + 1] as Pane;
      if (result === undefined) {
        result = pane;
        continue;
      }
      if (!copied) {
        const copy = this.emptyPane.slice();
        this.program.merge(copy, result);
        result = copy;
        copied = true;
      }
      this.program.merge(result, pane);
    }
    return result;
  }


  /** Counts the fired windows holding the slice ending at `slice` as late rows; true when all its windows have fired. */
  private countLate(slice: number): boolean {
    const last = this.slices.lastWindowEnd(slice);
    let end = this.slices.firstWindowEnd(slice);
    for (; end <= last && end - 1 <= this.watermark; end = this.slices.nextWindowEnd(end)) this.late();
    return end > last;
  }

  private late(): void {
    if (this.lateRows++ === 0) this.context.warn(`window aggregate ${this.context.operatorId}: dropped a row whose window had already fired (late); further late rows are counted`);
  }
}
