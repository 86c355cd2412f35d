/**
 * OVER aggregates over an input that retracts (weir's extension; Flink's OverAggregate needs an
 * insert-only input). The result is a dynamic table with one row per input row: the row followed
 * by the aggregates over its frame within its partition, where a partition's rows are ordered by
 * the time column (NULL times first, or last with `nullsLast`), ties in arrival order. Each
 * partition keeps its rows, in that order, with the results last emitted for them, in one keyed
 * value.
 *
 * An insert (+I/+U) or a retraction (-U/-D) adds or removes one row. The row is emitted (+I) or
 * retracted (-D); then the rows whose frame it entered or left (the rows after it within the
 * frame's reach, and for RANGE its peers before it) are recomputed with one accumulator that
 * slides over them, and each whose results changed is emitted as -U/+U. A retraction of a row the
 * partition does not hold is ignored with one warning.
 *
 * Times compare at the time column's full precision: a TIMESTAMP(p > 3) column's epoch nanos as
 * they are (rows a microsecond apart are no RANGE peers), its RANGE offset (milliseconds) scaled
 * to nanoseconds, as Flink compares the ORDER BY values themselves.
 */
import { NANOS_PER_MILLI } from '../../common/epoch-nanos.js';
import { invariant } from '../../common/errors.js';
import { keySelector, rowsEqual, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { OverAggregateSpec } from '../../dataflow/job-graph.js';
import { generateSlidingAggregate, type SlidingAggregateProgram } from '../aggregates/sliding-aggregate-codegen.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/**
 * A row's time: epoch milliseconds (a number) or epoch nanos (a bigint, TIMESTAMP(p > 3)), as the
 * column holds it; ±Infinity for NULL. Numbers and bigints compare exactly with each other.
 */
type Time = number | bigint;

/** `time` moved by `millis` milliseconds, in the time's own unit (±Infinity stays). */
function shifted(time: Time, millis: number): Time {
  return typeof time === 'bigint' ? time + BigInt(millis) * NANOS_PER_MILLI : time + millis;
}

/** A row of a partition with the aggregate results last emitted for it. */
interface OverEntry {
  readonly row: Row;
  results: unknown[];
}

/** The runtime implementation of an `over-aggregate` job-graph node in `updating` mode. */
export class UpdatingOverAggregateOperator implements StreamOperator {
  private readonly partitionOf: KeySelector;
  private readonly program: SlidingAggregateProgram;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private entries!: ValueState<OverEntry[]>;
  private warnedMissing = false;
  /** Where rows with a NULL time sort: before every time, or after with `nullsLast`; a RANGE frame of such a row holds its NULL peers only. */
  private readonly nullTime: number;

  /** Generates the aggregates' code; throws a WeirError when an aggregate call is not supported. */
  constructor(readonly spec: OverAggregateSpec) {
    invariant(spec.lags === undefined, 'LAG over an updating input runs in OverWindowOperator');
    this.partitionOf = keySelector(spec.partitionKeys);
    this.program = generateSlidingAggregate(spec.aggregates);
    this.nullTime = spec.nullsLast === true ? Infinity : -Infinity;
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.entries = context.keyedState.getValueState<OverEntry[]>({ name: 'over-aggregate.rows' });
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      state.setCurrentKey(this.partitionOf(row));
      const entries = this.entries.value() ?? [];
      const kind = batch.kinds[i]!;
      const time = this.timeOf(row);
      let from: number;
      let inserted: OverEntry | undefined;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        from = this.firstAfter(entries, time);
        inserted = { row, results: [] };
        entries.splice(from, 0, inserted);
      } else {
        from = this.indexOf(entries, row, time);
        if (from < 0) {
          this.missing();
          continue;
        }
        const [removed] = entries.splice(from, 1);
        out.push(RowKind.DELETE, [...removed!.row, ...removed!.results]);
      }
      this.recompute(entries, from, time, inserted, out);
      if (entries.length === 0) this.entries.clear();
      else this.entries.update(entries);
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  /**
   * Recomputes the rows whose frame contains a row of time `time` inserted at, or removed from,
   * index `at`: the new row is emitted (+I), every other row whose results changed as -U/+U.
   */
  private recompute(entries: OverEntry[], at: number, time: Time, inserted: OverEntry | undefined, out: ChangeBatch): void {
    const { unit, preceding } = this.spec.frame;
    let first = at;
    let last: number;
    if (unit === 'ROWS') last = preceding === null ? entries.length - 1 : Math.min(entries.length - 1, at + preceding - (inserted === undefined ? 1 : 0));
    else {
      first = this.firstAtOrAfter(entries, time);
      last = (preceding === null ? entries.length : this.firstAfter(entries, shifted(time, preceding))) - 1;
    }
    const { program } = this;
    const acc = program.create();
    let lo = first <= last ? this.frameStart(entries, first) : 0;
    let hi = lo - 1;
    for (let j = first; j <= last; j++) {
      const end = this.frameEnd(entries, j);
      while (hi < end) program.accumulate(acc, entries[++hi]!.row);
      const start = this.frameStart(entries, j);
      while (lo < start) program.retract(acc, entries[lo++]!.row);
      const entry = entries[j]!;
      const results = program.results(acc);
      if (entry === inserted) {
        entry.results = results;
        out.push(RowKind.INSERT, [...entry.row, ...results]);
      } else if (!sameResults(entry.results, results)) {
        out.push(RowKind.UPDATE_BEFORE, [...entry.row, ...entry.results]);
        entry.results = results;
        out.push(RowKind.UPDATE_AFTER, [...entry.row, ...results]);
      }
    }
  }

  /** The first index of the frame of the row at `j`. */
  private frameStart(entries: readonly OverEntry[], j: number): number {
    const { unit, preceding } = this.spec.frame;
    if (preceding === null) return 0;
    if (unit === 'ROWS') return Math.max(0, j - preceding);
    return this.firstAtOrAfter(entries, shifted(this.timeOf(entries[j]!.row), -preceding));
  }

  /** The last index of the frame of the row at `j`: the row itself, or for RANGE its last peer. */
  private frameEnd(entries: readonly OverEntry[], j: number): number {
    if (this.spec.frame.unit === 'ROWS') return j;
    return this.firstAfter(entries, this.timeOf(entries[j]!.row)) - 1;
  }

  /** The index of the first row whose time is at or after `time`. */
  private firstAtOrAfter(entries: readonly OverEntry[], time: Time): number {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.timeOf(entries[mid]!.row) < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of the first row whose time is after `time`. */
  private firstAfter(entries: readonly OverEntry[], time: Time): number {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.timeOf(entries[mid]!.row) <= time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of a row equal to `row` among those of time `time`, or -1. */
  private indexOf(entries: readonly OverEntry[], row: Row, time: Time): number {
    for (let i = this.firstAtOrAfter(entries, time); i < entries.length && this.timeOf(entries[i]!.row) === time; i++) {
      if (rowsEqual(entries[i]!.row, row)) return i;
    }
    return -1;
  }

  /** The row's time at full precision; a NULL time orders first (-Infinity), or last (+Infinity) with `nullsLast`. */
  private timeOf(row: Row): Time {
    const value = row[this.spec.timeIndex];
    return typeof value === 'number' || typeof value === 'bigint' ? value : this.nullTime;
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`over aggregate ${this.context.operatorId}: ignored a retraction of a row its partition does not hold; further ones are ignored silently`);
  }
}

/** Whether two result lists are equal (NaN equals NaN). */
export function sameResults(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && (a[i] === a[i] || b[i] === b[i])) return false;
  return true;
}
