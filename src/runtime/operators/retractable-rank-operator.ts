/**
 * Top-N per partition numbered by ROW_NUMBER, RANK or DENSE_RANK, over any input (Flink's
 * RetractableTopNFunction, and its append-only RANK variants). Each partition's rows are kept
 * sorted in keyed state (ties of the order keys in arrival order). A change inserts or removes
 * one row; the partition's rows numbered within the range (`rankStart` to `limit`) before and
 * after it are compared, and every row whose number or presence changed is emitted (see
 * {@link RetractableRankOperator.diff}: retractions first, updates only of a row RANK or DENSE_RANK
 * renumbers); without the number (`outputRankNumber` false) a row is emitted
 * only when it enters (+I) or leaves (-D) the range, removals first. A retraction can pull a row
 * from beyond the limit into it, so an input that retracts keeps every row of the partition; an
 * insert-only input only pushes rows further down, so the rows numbered beyond the limit are
 * dropped. Output rows are the input row followed by its number, unless it is not output.
 */
import { keySelector, rowsEqual, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { RankSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { rowOrder } from './row-order.js';

/** A numbered row of a partition's top: the kept row (by reference) and its number. */
type Numbered = readonly [Row, number];

/** The runtime implementation of a `rank` job-graph node for RANK, DENSE_RANK, or a retracting input. */
export class RetractableRankOperator implements StreamOperator {
  private readonly partitionOf: KeySelector;
  private readonly before: (a: Row, b: Row) => boolean;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private sorted!: ValueState<Row[]>;
  private warnedMissing = false;

  /** The lowest number emitted. */
  private readonly start: number;
  /** Whether output rows end with their number. */
  private readonly numbered: boolean;

  constructor(readonly spec: RankSpec) {
    this.partitionOf = keySelector(spec.partitionKeys);
    this.before = rowOrder(spec.orderKeys);
    this.start = spec.rankStart ?? 1;
    this.numbered = spec.outputRankNumber !== false;
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.sorted = context.keyedState.getValueState<Row[]>({ name: 'rank.sorted' });
  }

  processBatch(batch: ChangeBatch): void {
    const out = this.out;
    out.clear();
    const state = this.context.keyedState;
    for (let i = 0; i < batch.size; i++) {
      const row = batch.rows[i]!;
      state.setCurrentKey(this.partitionOf(row));
      const rows = this.sorted.value() ?? [];
      const before = this.top(rows);
      const kind = batch.kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        rows.splice(this.upperBound(rows, row), 0, row);
      } else {
        const index = this.indexOf(rows, row);
        if (index < 0) {
          this.missing();
          continue;
        }
        rows.splice(index, 1);
      }
      const after = this.top(rows);
      if (this.numbered) this.diff(this.inRange(before), this.inRange(after), out);
      else this.diffRows(this.inRange(before), this.inRange(after), out);
      if (this.spec.inputRetracts !== true) rows.length = Math.min(rows.length, after.length);
      if (rows.length === 0) this.sorted.clear();
      else this.sorted.update(rows);
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  /** The rows numbered from the range's start on (of those {@link top} returns). */
  private inRange(top: readonly Numbered[]): readonly Numbered[] {
    if (this.start === 1) return top;
    let first = 0;
    while (first < top.length && top[first]![1] < this.start) first++;
    return top.slice(first);
  }

  /** Emits the rows of `before` not in `after` as -D, then those of `after` not in `before` as +I (rows without their numbers). */
  private diffRows(before: readonly Numbered[], after: readonly Numbered[], out: ChangeBatch): void {
    const previous = new Map<Row, number>();
    for (const [row] of before) previous.set(row, (previous.get(row) ?? 0) + 1);
    const added: Row[] = [];
    for (const [row] of after) {
      const count = previous.get(row);
      if (count === undefined) added.push(row);
      else if (count === 1) previous.delete(row);
      else previous.set(row, count - 1);
    }
    for (const [row, count] of previous) for (let c = 0; c < count; c++) out.push(RowKind.DELETE, row);
    for (const row of added) out.push(RowKind.INSERT, row);
  }

  /** The rows numbered within the limit, in order, with their numbers. */
  private top(rows: readonly Row[]): Numbered[] {
    const { limit, rankType } = this.spec;
    const top: Numbered[] = [];
    let number = 0;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const tie = i > 0 && !this.before(rows[i - 1]!, row);
      if (rankType === undefined) number = i + 1;
      else if (!tie) number = rankType === 'RANK' ? i + 1 : number + 1;
      if (number > limit) break;
      top.push([row, number]);
    }
    return top;
  }

  /**
   * Emits what changed between two tops: the entries of `before` not in `after` are retracted, the
   * new ones added, so that a consumer applying the changes by any upsert key of the output ends
   * with the new top. Every retraction comes before every addition: a key value that leaves with
   * one row and returns with another (the number of ROW_NUMBER, a row's key moving to a new
   * number) must be deleted before it is written again, not after. An update (-U/+U) is emitted
   * only for a row whose number changed under RANK or DENSE_RANK, whose keys are the input's:
   * the pair then shares every key. Under ROW_NUMBER the number is a key too, which a row that
   * moves does not keep, so its changes are deletions and insertions.
   */
  private diff(before: readonly Numbered[], after: readonly Numbered[], out: ChangeBatch): void {
    const previous = new Map<Row, number[]>();
    for (const [row, number] of before) {
      const numbers = previous.get(row);
      if (numbers === undefined) previous.set(row, [number]);
      else numbers.push(number);
    }
    const added: Numbered[] = [];
    for (const entry of after) {
      const numbers = previous.get(entry[0]);
      const at = numbers === undefined ? -1 : numbers.indexOf(entry[1]);
      if (at >= 0) numbers!.splice(at, 1);
      else added.push(entry);
    }
    const removed: Numbered[] = [];
    for (const [row, numbers] of previous) for (const number of numbers) removed.push([row, number]);
    // Under RANK and DENSE_RANK, a row renumbered is an update of that row (an index into `removed`).
    const renumbered = new Map<Row, number>();
    if (this.spec.rankType !== undefined) removed.forEach(([row], i) => renumbered.set(row, i));
    const updates: [number, Numbered][] = [];
    const inserts: Numbered[] = [];
    const updated = new Set<number>();
    for (const entry of added) {
      const at = renumbered.get(entry[0]);
      if (at !== undefined && !updated.has(at)) {
        updated.add(at);
        updates.push([at, entry]);
      } else {
        inserts.push(entry);
      }
    }
    for (let i = 0; i < removed.length; i++) if (!updated.has(i)) out.push(RowKind.DELETE, [...removed[i]![0], removed[i]![1]]);
    for (const [at, [row, number]] of updates) {
      out.push(RowKind.UPDATE_BEFORE, [...removed[at]![0], removed[at]![1]]);
      out.push(RowKind.UPDATE_AFTER, [...row, number]);
    }
    for (const [row, number] of inserts) out.push(RowKind.INSERT, [...row, number]);
  }

  /** The position after every row that does not order after `row` (ties keep arrival order). */
  private upperBound(rows: readonly Row[], row: Row): number {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(row, rows[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** The index of a row equal to `row` among those that order equal to it, or -1. */
  private indexOf(rows: readonly Row[], row: Row): number {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.before(rows[mid]!, row)) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < rows.length && !this.before(row, rows[i]!); i++) if (rowsEqual(rows[i]!, row)) return i;
    return -1;
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`rank ${this.context.operatorId}: ignored a retraction of a row the partition does not hold (state expired, or dropped beyond the limit); further ones are ignored silently`);
  }
}
