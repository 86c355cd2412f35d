/**
 * Interval join of two insert-only inputs (Flink's RowTimeIntervalJoin): a left row `l` and a
 * right row `r` with equal keys match when `r.t + lower <= l.t <= r.t + upper` and the residual
 * condition holds; each match is emitted once as +I.
 *
 * State: per join key and input, the rows that a future row of the other input could still match,
 * each with whether it has matched yet, in the order in which they expire. A future row is not behind the watermark W, so a left row
 * is needed while `l.t - lower > W` and a right row while `r.t + upper > W` (its expiry). A row
 * is removed by an event-time timer once W reaches its expiry (one timer per key and input, at
 * the earliest expiry); an unmatched row of an outer input is then emitted NULL-padded. A row arriving with its time at or behind W is late: it is dropped
 * and counted (rows of an outer input and rows with a NULL key too), never mixed in. Flink instead joins such a row with
 * whatever is still in state; both agree whenever the inputs respect their watermarks, and weir's
 * result is then exactly the batch join of the rows that were not late. A row with a NULL time
 * or key matches nothing (an outer input's is emitted padded at once).
 *
 * A window join (Flink's WindowJoin) runs here too: an interval join with zero bounds on the
 * window_end columns of two window aggregations, whose rows arrive before the watermark passes
 * their window's end and leave state when it does.
 *
 * Every output row has `l.t > W + min(lower, 0)` and `r.t > W - max(upper, 0)`, so the output
 * watermark is W held back by `max(0, -lower, upper)`: windows downstream never see late rows.
 * Timers are not checkpointed: they are registered again from keyed state on open.
 *
 * The rows of a key are list state, in expiry order: a row that arrives in order (nearly all of
 * them) is appended, so an incremental checkpoint writes only the new rows of a key however many
 * it holds; one out of order, and expiry (a prefix leaves), rewrite the list. An outer input also
 * keeps, per key, which stored rows have matched (flags by position, value state; a missing flag
 * is false), rewritten when one changes — an inner input keeps none.
 */
import { isOuterSide } from '../../common/join-type.js';
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { IntervalJoinSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import type { KeyedStateBackend, ListState, ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { hasNull, nullPadder, rowCombiner } from './join-rows.js';
import { WindowTimers } from './window-timers.js';

/** Keyed state of each input: the rows of a join key that can still match, in expiry order. */
export const INTERVAL_JOIN_STATE_NAMES = ['interval-join.left-rows', 'interval-join.right-rows'] as const;

/** Keyed state of each outer input: per key, whether each stored row (by position) has matched a row of the other input. */
export const INTERVAL_JOIN_MATCHED_STATE_NAMES = ['interval-join.left-matched', 'interval-join.right-matched'] as const;

/** The keyed state of each input in checkpoints of earlier weir versions: one value per key, its records; moved into the current states on open. */
const LEGACY_STATE_NAMES = ['interval-join.left', 'interval-join.right'] as const;

/** A stored row and whether it has matched, as earlier versions kept them. */
interface LegacyRecord {
  readonly row: Row;
  readonly matched: boolean;
}

/** The runtime implementation of an `interval-join` job-graph node. */
export class IntervalJoinOperator implements StreamOperator {
  private readonly joinKey: readonly [KeySelector, KeySelector];
  private readonly keyColumns: readonly [readonly number[], readonly number[]];
  private readonly timeColumns: readonly [number, number];
  private readonly outer: readonly [boolean, boolean];
  private readonly combine: (left: Row, right: Row) => Row;
  private readonly pad: readonly [(row: Row) => Row, (row: Row) => Row];
  private readonly matches: (left: Row, right: Row) => boolean;
  /** How long the output watermark trails the input watermark. */
  private readonly watermarkDelay: number;
  private readonly out = new ChangeBatch();
  private readonly timers = new WindowTimers();
  private context!: OperatorContext;
  private rows!: readonly [ListState<Row>, ListState<Row>];
  /** Per input: its matched flags when it is an outer input. */
  private matched!: readonly [ValueState<boolean[]> | undefined, ValueState<boolean[]> | undefined];
  private watermark = -Infinity;
  /** Rows dropped because they arrived at or behind the watermark. */
  lateRows = 0;

  constructor(readonly spec: IntervalJoinSpec, compiler: ExprCompiler) {
    const { bounds } = spec;
    this.joinKey = [keySelector(spec.leftKeys), keySelector(spec.rightKeys)];
    this.keyColumns = [spec.leftKeys, spec.rightKeys];
    this.timeColumns = [bounds.leftTimeIndex, bounds.rightTimeIndex];
    this.outer = [isOuterSide(spec.joinType, 0), isOuterSide(spec.joinType, 1)];
    this.combine = rowCombiner(spec.leftArity, spec.rightArity);
    this.pad = [nullPadder(0, spec.leftArity, spec.rightArity), nullPadder(1, spec.leftArity, spec.rightArity)];
    this.matches = spec.condition === null ? () => true : compiler.joinPredicate(spec.condition, spec.leftArity);
    this.watermarkDelay = Math.max(0, -bounds.lower, bounds.upper);
  }

  open(context: OperatorContext): void {
    this.context = context;
    const backend = context.keyedState;
    this.rows = [backend.getListState({ name: INTERVAL_JOIN_STATE_NAMES[0] }), backend.getListState({ name: INTERVAL_JOIN_STATE_NAMES[1] })];
    const matched = (side: 0 | 1): ValueState<boolean[]> | undefined => (this.outer[side] ? backend.getValueState({ name: INTERVAL_JOIN_MATCHED_STATE_NAMES[side] }) : undefined);
    this.matched = [matched(0), matched(1)];
    for (const side of [0, 1] as const) {
      this.migrate(backend, side);
      for (const [key, rows] of backend.entriesOf<Row[]>({ name: INTERVAL_JOIN_STATE_NAMES[side] })) {
        if (rows.length > 0) this.timers.register(this.expiry(rows[0]!, side), key);
      }
    }
  }

  /** Moves the records of a checkpoint of an earlier version (one value per key) into the current states. */
  private migrate(backend: KeyedStateBackend, side: 0 | 1): void {
    const legacy = [...backend.entriesOf<LegacyRecord[]>({ name: LEGACY_STATE_NAMES[side] })];
    if (legacy.length === 0) return;
    const old = backend.getValueState<LegacyRecord[]>({ name: LEGACY_STATE_NAMES[side] });
    for (const [key, records] of legacy) {
      backend.setCurrentKey(key);
      this.rows[side].update(records.map((r) => r.row));
      if (records.some((r) => r.matched)) this.matched[side]?.update(records.map((r) => r.matched));
      old.clear();
    }
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const side = input === 0 ? 0 : 1;
    const out = this.out;
    out.clear();
    const { rows } = batch;
    for (let i = 0; i < rows.length; i++) this.processRow(rows[i]!, side, out);
    if (out.size > 0) this.context.output.collect(out);
  }

  processWatermark(watermark: number): void {
    this.watermark = watermark;
    const out = this.out;
    out.clear();
    this.timers.advance(watermark, (key) => this.expire(key, out));
    if (out.size > 0) this.context.output.collect(out);
    this.context.output.emitWatermark(watermark - this.watermarkDelay);
  }

  private processRow(row: Row, side: 0 | 1, out: ChangeBatch): void {
    const time = row[this.timeColumns[side]];
    if (typeof time === 'number' && time <= this.watermark) return this.late();
    if (typeof time !== 'number' || hasNull(row, this.keyColumns[side])) {
      if (this.outer[side]) out.push(RowKind.INSERT, this.pad[side](row));
      return;
    }
    const key = this.joinKey[side](row);
    this.context.keyedState.setCurrentKey(key);
    const { lower, upper } = this.spec.bounds;
    // The other input's times t that match: left time - t within [lower, upper].
    const from = side === 0 ? time - upper : time + lower;
    const to = side === 0 ? time - lower : time + upper;
    const otherTime = this.timeColumns[1 - side]!;
    let matched = false;
    const others = this.rows[1 - side]!.get();
    const otherMatched = this.matched[1 - side];
    const otherFlags = otherMatched?.value();
    let newFlags: boolean[] | undefined;
    for (let i = 0; i < others.length; i++) {
      const other = others[i]!;
      const t = other[otherTime] as number;
      if (t < from || t > to) continue;
      const l = side === 0 ? row : other;
      const r = side === 0 ? other : row;
      if (!this.matches(l, r)) continue;
      out.push(RowKind.INSERT, this.combine(l, r));
      matched = true;
      if (otherMatched !== undefined && otherFlags?.[i] !== true) setFlag((newFlags ??= otherFlags === undefined ? [] : otherFlags.slice()), i, true);
    }
    if (newFlags !== undefined) otherMatched!.update(newFlags);
    const expiry = this.expiry(row, side);
    if (expiry <= this.watermark) {
      if (!matched && this.outer[side]) out.push(RowKind.INSERT, this.pad[side](row));
      return;
    }
    const state = this.rows[side];
    const stored = state.get();
    // Kept in expiry order (rows arrive nearly in time order, so this is nearly always an append).
    let at = stored.length;
    while (at > 0 && this.expiry(stored[at - 1]!, side) > expiry) at--;
    if (at === stored.length) state.add(row);
    else state.update([...stored.slice(0, at), row, ...stored.slice(at)]);
    const matchedState = this.matched[side];
    const flags = matchedState?.value();
    if (matchedState !== undefined && (matched || at < (flags?.length ?? 0))) {
      const next = flags === undefined ? [] : flags.slice();
      if (at < next.length) next.splice(at, 0, matched);
      else setFlag(next, at, matched);
      matchedState.update(next);
    }
    if (at === 0) this.timers.register(expiry, key);
  }

  /** Removes the rows of `key` whose expiry the watermark has reached (a prefix of each list), padding unmatched outer ones. */
  private expire(key: Key, out: ChangeBatch): void {
    this.context.keyedState.setCurrentKey(key);
    for (const side of [0, 1] as const) {
      const state = this.rows[side];
      const rows = state.get();
      if (rows.length === 0) continue;
      const matchedState = this.matched[side];
      const flags = matchedState?.value();
      let expired = 0;
      while (expired < rows.length && this.expiry(rows[expired]!, side) <= this.watermark) {
        if (matchedState !== undefined && flags?.[expired] !== true) out.push(RowKind.INSERT, this.pad[side](rows[expired]!));
        expired++;
      }
      if (expired === 0) continue;
      const rest = rows.slice(expired);
      if (rest.length === 0) state.clear();
      else {
        state.update(rest);
        this.timers.register(this.expiry(rest[0]!, side), key);
      }
      if (flags === undefined) continue;
      const restFlags = flags.slice(expired);
      if (restFlags.includes(true)) matchedState!.update(restFlags);
      else matchedState!.clear();
    }
  }

  /** The time from which no row of the other input that respects the watermark can match `row`. */
  private expiry(row: Row, side: 0 | 1): number {
    const time = row[this.timeColumns[side]] as number;
    return side === 0 ? time - this.spec.bounds.lower : time + this.spec.bounds.upper;
  }

  private late(): void {
    if (this.lateRows++ === 0) this.context.warn(`interval join ${this.context.operatorId}: dropped a row at or behind the watermark (late); further late rows are counted`);
  }
}

/** Sets flag `at` of `flags` to `value`, filling the flags before it with false. */
function setFlag(flags: boolean[], at: number, value: boolean): void {
  while (flags.length < at) flags.push(false);
  flags[at] = value;
}
