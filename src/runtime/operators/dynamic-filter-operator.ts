/**
 * RisingWave's DynamicFilter (a `dynamic-filter` job-graph node): the rows of input 0 whose column
 * `inputIndex` compares (`<`, `<=`, `>`, `>=`) with the bound, the value of the one row of input 1
 * (a global aggregate: `t.x > (SELECT MAX(v) FROM u)`). Both inputs come to one subtask.
 *
 * State: under each distinct value of the column (the state key), that value's rows of input 0 as
 * a counted multiset (join-record-state-view.ts), so a retraction finds its row in constant time;
 * the bound under key NULL of a state of its own; and in memory the distinct values in order (an
 * ordered multiset, rebuilt from keyed state on open). A row whose value is NULL or NaN passes no
 * comparison and is never stored. Invariant: the rows emitted so far, as a changelog, are exactly
 * the stored rows whose value passes the comparison with the stored bound.
 *
 * A change of input 0 is stored, and emitted when its row passes: +I when it accumulates (+I/+U),
 * -D when it retracts (-U/-D). A batch of input 1 moves the bound to its last row's value (none
 * after a retraction, as when the aggregate's input empties); only the values between the old and
 * the new bound are then visited, and the rows of those whose outcome changed are emitted, +I
 * entering and -D leaving. Costs: per record of input 0, O(1) (O(log n) for a value not stored
 * before); per change of the bound, O(log n) plus the values and rows between the two bounds. A
 * retraction of a row that is not stored is ignored, with one warning.
 */
import type { Key } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { DynamicFilterSpec } from '../../dataflow/job-graph.js';
import { emptyMultiset, multisetAdd, multisetForEachBetween, multisetRemove, precedes, type OrderedMultiset } from '../../expr/aggregates/ordered-multiset.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import { CountedRecordView } from '../state/join-record-state-view.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** The keyed state of the rows (by their value) and of the bound (under key NULL). */
export const DYNAMIC_FILTER_STATE_NAMES = { rows: 'dynamic-filter.rows', bound: 'dynamic-filter.bound' } as const;

/** Whether `value <op> bound` holds, for two non-NULL values of one type. */
type Comparison = (value: unknown, bound: unknown) => boolean;

const COMPARISONS: Readonly<Record<DynamicFilterSpec['comparison'], Comparison>> = {
  '<': (value, bound) => (value as never) < (bound as never),
  '<=': (value, bound) => (value as never) <= (bound as never),
  '>': (value, bound) => (value as never) > (bound as never),
  '>=': (value, bound) => (value as never) >= (bound as never),
};

const NO_COMBINE = (): Row => {
  throw new Error('a dynamic filter never combines rows');
};

/** The runtime implementation of a `dynamic-filter` job-graph node. */
export class DynamicFilterOperator implements StreamOperator {
  private readonly passes: Comparison;
  /** Whether the rows that pass lie above the bound (`>`, `>=`) rather than below it. */
  private readonly above: boolean;
  private readonly out = new ChangeBatch();
  private readonly index: OrderedMultiset = emptyMultiset();
  private context!: OperatorContext;
  private rows!: CountedRecordView;
  private boundState!: ValueState<unknown>;
  /** The current bound; undefined while nothing passes (no bound row, or a NULL or NaN bound). */
  private bound: unknown;
  private warnedMissing = false;

  constructor(readonly spec: DynamicFilterSpec) {
    this.passes = COMPARISONS[spec.comparison];
    this.above = spec.comparison === '>' || spec.comparison === '>=';
  }

  open(context: OperatorContext): void {
    this.context = context;
    const backend = context.keyedState;
    this.rows = new CountedRecordView(backend, { stateName: DYNAMIC_FILTER_STATE_NAMES.rows, left: true, combine: NO_COMBINE });
    this.boundState = backend.getValueState({ name: DYNAMIC_FILTER_STATE_NAMES.bound });
    for (const [value] of backend.entriesOf({ name: DYNAMIC_FILTER_STATE_NAMES.rows })) multisetAdd(this.index, value);
    backend.setCurrentKey(null);
    this.bound = this.boundState.value();
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const out = this.out;
    out.clear();
    if (input === 0) this.processRows(batch, out);
    else this.processBound(batch, out);
    if (out.size > 0) this.context.output.collect(out);
  }

  private processRows(batch: ChangeBatch, out: ChangeBatch): void {
    const backend = this.context.keyedState;
    const { rows, index, passes, bound } = this;
    const column = this.spec.inputIndex;
    const { kinds, rows: records } = batch;
    for (let i = 0; i < records.length; i++) {
      const row = records[i]!;
      const value = row[column];
      if (value === null || value !== value) continue;
      backend.setCurrentKey(value as Key);
      const kind = kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        if (rows.isEmpty()) multisetAdd(index, value);
        rows.add(row);
        if (bound !== undefined && passes(value, bound)) out.push(RowKind.INSERT, row);
      } else if (rows.retract(row)) {
        if (rows.isEmpty()) multisetRemove(index, value);
        if (bound !== undefined && passes(value, bound)) out.push(RowKind.DELETE, row);
      } else this.missing();
    }
  }

  /** Moves the bound to the value of the batch's last row and emits the rows whose outcome changed. */
  private processBound(batch: ChangeBatch, out: ChangeBatch): void {
    let next = this.bound;
    const { kinds, rows: records } = batch;
    for (let i = 0; i < records.length; i++) {
      const kind = kinds[i]!;
      const value = records[i]![0];
      next = (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) && value !== null && value === value ? value : undefined;
    }
    const previous = this.bound;
    if (next === previous) return;
    this.bound = next;
    const backend = this.context.keyedState;
    backend.setCurrentKey(null);
    if (next === undefined) this.boundState.clear();
    else this.boundState.update(next);
    if (previous === undefined) this.emitPassing(next, RowKind.INSERT, out);
    else if (next === undefined) this.emitPassing(previous, RowKind.DELETE, out);
    else this.emitBetween(previous, next, out);
  }

  /** Emits, as `kind`, every stored row that passes against `bound`. */
  private emitPassing(bound: unknown, kind: RowKind, out: ChangeBatch): void {
    const low = this.above ? bound : undefined;
    const high = this.above ? undefined : bound;
    multisetForEachBetween(this.index, low, high, (value) => {
      if (this.passes(value, bound)) this.emitValue(value, kind, out);
    });
  }

  /** Emits the rows whose outcome differs between the two bounds: those of the values from one bound to the other. */
  private emitBetween(previous: unknown, next: unknown, out: ChangeBatch): void {
    const [low, high] = precedes(next, previous) ? [next, previous] : [previous, next];
    multisetForEachBetween(this.index, low, high, (value) => {
      const before = this.passes(value, previous);
      if (before !== this.passes(value, next)) this.emitValue(value, before ? RowKind.DELETE : RowKind.INSERT, out);
    });
  }

  /** Emits, as `kind`, every stored row (each copy) whose column holds `value`. */
  private emitValue(value: unknown, kind: RowKind, out: ChangeBatch): void {
    this.context.keyedState.setCurrentKey(value as Key);
    this.rows.forEachEntry((entry) => {
      for (let c = 0; c < entry.count; c++) out.push(kind, entry.row);
    });
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`dynamic filter ${this.context.operatorId}: ignored a retraction of a row that was never inserted; further ones are ignored silently`);
  }
}
