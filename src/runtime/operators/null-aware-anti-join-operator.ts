/**
 * The null-aware anti join (Flink's null-aware LeftAntiJoin), what `x NOT IN (SELECT v ...)` over
 * nullable columns becomes: a left row is kept while no right row of its key (the correlation, SQL
 * equality: a NULL key matches nothing, so such a left row is always kept and passed through) has
 * `v` equal to its `x` or NULL, and, when its own `x` is NULL, while its key has no right row at
 * all. That is SQL's `x NOT IN (...)` being TRUE: a NULL in the list makes it never TRUE, and a
 * NULL `x` is TRUE only against the empty list.
 *
 * State per key, one value: the number of right rows, of those with a NULL `v`, and of each `v`;
 * and the left rows grouped by `x` (NULL `x` apart), each distinct row with its copies. Every
 * change costs a lookup plus the rows it makes appear or disappear: a right row's arrival deletes
 * the left rows of its `x` when it is the first of its value (and no NULL is there), a NULL `v`'s
 * the left rows no value matches, the first right row the left rows with a NULL `x`; departures
 * bring them back. Updates come out as -D/+I. A retraction of a row that is not stored is ignored,
 * with one warning.
 */
import { keySelector, rowsEqual, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { SemiJoinSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { hasNull, nullRejectingColumns } from './join-rows.js';

/** A distinct left row and its number of copies. */
interface LeftEntry {
  readonly row: Row;
  count: number;
}

/** Everything under one key (plain data: numbers, arrays and Maps). */
interface NullAwareState {
  /** Right rows, with copies. */
  rights: number;
  /** Right rows whose value is NULL. */
  rightNulls: number;
  /** Right rows per non-NULL value. */
  readonly rightValues: Map<Key, number>;
  /** Left rows per non-NULL value. */
  readonly left: Map<Key, LeftEntry[]>;
  /** Left rows whose value is NULL. */
  readonly leftNulls: LeftEntry[];
}

const STATE_NAME = 'null-aware-anti-join';

/** The runtime implementation of a `semi-join` job-graph node with a `nullAwareKey`. */
export class NullAwareAntiJoinOperator implements StreamOperator {
  private readonly joinKey: readonly [KeySelector, KeySelector];
  private readonly nullRejecting: readonly [readonly number[], readonly number[]];
  private readonly value: readonly [KeySelector, KeySelector];
  private readonly valueColumn: readonly [number, number];
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private state!: ValueState<NullAwareState>;
  private warnedMissing = false;

  constructor(readonly spec: SemiJoinSpec) {
    if (spec.nullAwareKey === undefined || !spec.anti || spec.condition !== undefined) throw new Error('a null-aware anti join needs a null-aware key and no condition');
    this.joinKey = [keySelector(spec.leftKeys), keySelector(spec.rightKeys)];
    this.nullRejecting = [nullRejectingColumns(spec.leftKeys, spec.nullSafe), nullRejectingColumns(spec.rightKeys, spec.nullSafe)];
    this.valueColumn = spec.nullAwareKey;
    this.value = [keySelector([spec.nullAwareKey[0]]), keySelector([spec.nullAwareKey[1]])];
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.state = context.keyedState.getValueState<NullAwareState>({ name: STATE_NAME });
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const out = this.out;
    out.clear();
    const side = input === 0 ? 0 : 1;
    const { kinds, rows } = batch;
    const backend = this.context.keyedState;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const accumulate = kinds[i] === RowKind.INSERT || kinds[i] === RowKind.UPDATE_AFTER;
      if (hasNull(row, this.nullRejecting[side])) {
        // A NULL key matches nothing: the left row is kept, the right row ignored.
        if (side === 0) out.push(accumulate ? RowKind.INSERT : RowKind.DELETE, row);
        continue;
      }
      backend.setCurrentKey(this.joinKey[side](row));
      const state = this.state.value() ?? { rights: 0, rightNulls: 0, rightValues: new Map(), left: new Map(), leftNulls: [] };
      if (side === 0) this.left(state, row, accumulate);
      else this.right(state, row, accumulate);
      if (state.rights === 0 && state.left.size === 0 && state.leftNulls.length === 0) this.state.clear();
      else this.state.update(state);
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  private left(state: NullAwareState, row: Row, accumulate: boolean): void {
    const isNull = row[this.valueColumn[0]] === null;
    const value = isNull ? undefined : this.value[0](row);
    const kept = isNull ? state.rights === 0 : state.rightNulls === 0 && !state.rightValues.has(value!);
    let entries = isNull ? state.leftNulls : state.left.get(value!);
    if (accumulate) {
      if (entries === undefined) state.left.set(value!, (entries = []));
      const entry = entries.find((e) => rowsEqual(e.row, row));
      if (entry === undefined) entries.push({ row, count: 1 });
      else entry.count++;
      if (kept) this.out.push(RowKind.INSERT, row);
      return;
    }
    const index = entries === undefined ? -1 : entries.findIndex((e) => rowsEqual(e.row, row));
    if (index < 0) return this.missing();
    const entry = entries![index]!;
    if (--entry.count === 0) {
      entries!.splice(index, 1);
      if (!isNull && entries!.length === 0) state.left.delete(value!);
    }
    if (kept) this.out.push(RowKind.DELETE, row);
  }

  private right(state: NullAwareState, row: Row, accumulate: boolean): void {
    const isNull = row[this.valueColumn[1]] === null;
    const value = isNull ? undefined : this.value[1](row);
    if (!accumulate) {
      const present = isNull ? state.rightNulls > 0 : state.rightValues.has(value!);
      if (!present) return this.missing();
    }
    const delta = accumulate ? 1 : -1;
    const kind = accumulate ? RowKind.DELETE : RowKind.INSERT;
    // The first right row of the key excludes the left rows with a NULL value; the last brings them back.
    state.rights += delta;
    if (state.rights === (accumulate ? 1 : 0)) this.emitAll(state.leftNulls, kind);
    if (isNull) {
      state.rightNulls += delta;
      // The first NULL excludes every left row no value matches yet; the last brings them back.
      if (state.rightNulls === (accumulate ? 1 : 0)) {
        for (const [leftValue, entries] of state.left) if (!state.rightValues.has(leftValue)) this.emitAll(entries, kind);
      }
      return;
    }
    const count = (state.rightValues.get(value!) ?? 0) + delta;
    if (count === 0) state.rightValues.delete(value!);
    else state.rightValues.set(value!, count);
    // The first row of a value excludes the left rows of that value (unless a NULL already does).
    if (count === (accumulate ? 1 : 0) && state.rightNulls === 0) {
      const entries = state.left.get(value!);
      if (entries !== undefined) this.emitAll(entries, kind);
    }
  }

  private emitAll(entries: readonly LeftEntry[], kind: RowKind): void {
    for (const entry of entries) for (let c = 0; c < entry.count; c++) this.out.push(kind, entry.row);
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`null-aware anti join ${this.context.operatorId}: ignored a retraction of a row that was never inserted; further ones are ignored silently`);
  }
}
