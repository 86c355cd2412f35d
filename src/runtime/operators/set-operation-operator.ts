/**
 * INTERSECT [ALL] and EXCEPT [ALL] over two changelogs, exact under retraction on either side.
 * Both inputs are hash-partitioned by every column, so all copies of a row meet in one subtask,
 * keyed by the row itself (NULL equal to NULL, as SQL's set operations compare rows). Per distinct
 * row the operator keeps how many copies each input holds, l and r, and the output holds the row
 * min(l, r) times (INTERSECT ALL), max(l - r, 0) times (EXCEPT ALL), or once when l > 0 and r > 0
 * (INTERSECT) or l > 0 and r = 0 (EXCEPT). A batch is folded into the counts first; then each row
 * it changed emits the difference of its output count, as that many +I or -D of the row (never
 * -U/+U: a row's identity is all its columns, so it is only ever added or removed).
 *
 * Why not Flink's plan: Flink rewrites INTERSECT into a semi join on all columns and EXCEPT into an
 * anti join, each under a DISTINCT aggregate, and the ALL forms into a UNION ALL of both inputs
 * tagged with a marker column, a GroupAggregate counting the markers per row, a filter and the
 * `replicate_rows` table function (RewriteIntersectAllRule, RewriteMinusAllRule). Streaming, that
 * keeps every row in the join's state and again in the aggregate's, and under retraction the
 * aggregate's -U/+U of a count makes `replicate_rows` retract every copy of the row and emit every
 * copy again — O(multiplicity) records for a change of one copy. Here one operator keeps one small
 * number per distinct row and emits only the difference; UNION (distinct) needs no operator of its
 * own, since the DISTINCT aggregate over a UNION ALL (Flink's plan) already counts rows per group.
 *
 * State: one keyed value per distinct row, `l * 2^15 + r` while both counts are below 2^15 (a
 * small integer, which V8 stores in the Map entry without allocating) and `[l, r]` beyond; a row
 * whose counts both reach 0 leaves state. While a batch is folded, a row's value is the marker
 * -(slot + 1) pointing at its slot in the batch's scratch arrays, so that each record costs one
 * state lookup whatever the backend returns, and each changed row is written back once per batch
 * (through `update`/`clear`, so nothing relies on the backend handing out its own objects). A
 * retraction of a row the input does not hold (its state expired under `table.exec.state.ttl`, or
 * the input is wrong) is ignored, with one warning per operator.
 */
import { keySelector, type Key, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { SetOperationSpec } from '../../dataflow/job-graph.js';
import type { ValueState } from '../state/keyed-state-backend.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';

/** Name of the keyed value state holding each distinct row's counts (see {@link RowCounts}). */
export const SET_OPERATION_COUNTS_STATE = 'set-operation.counts';

/**
 * A distinct row's copies in the left and right inputs, `l` and `r`: `l * 2^15 + r` when both are
 * below 2^15, `[l, r]` otherwise. Between batches never 0 (a row without copies has no state) and
 * never negative (negative values mark a row's batch slot while a batch is folded).
 */
export type RowCounts = number | readonly [number, number];

/** The packed form holds counts below this. */
const PACKED_LIMIT = 0x8000;

/** The output count of a row held `l` times on the left and `r` times on the right. */
type Multiplicity = (l: number, r: number) => number;

const MULTIPLICITY: Readonly<Record<`${SetOperationSpec['op']}${'' | ' ALL'}`, Multiplicity>> = {
  INTERSECT: (l, r) => (l > 0 && r > 0 ? 1 : 0),
  'INTERSECT ALL': (l, r) => (l < r ? l : r),
  EXCEPT: (l, r) => (l > 0 && r === 0 ? 1 : 0),
  'EXCEPT ALL': (l, r) => (l > r ? l - r : 0),
};

/** The runtime implementation of a `set-operation` job-graph node. */
export class SetOperationOperator implements StreamOperator {
  private readonly keyOf: KeySelector;
  private readonly multiplicity: Multiplicity;
  private readonly out = new ChangeBatch();
  private context: OperatorContext | undefined;
  private state: ValueState<RowCounts> | undefined;
  /** Per slot of the current batch (one per changed row): its key, a row of it, its counts and output count before the batch. */
  private readonly keys: Key[] = [];
  private readonly rows: (Row | undefined)[] = [];
  private readonly lefts: number[] = [];
  private readonly rights: number[] = [];
  private readonly before: number[] = [];
  private warnedMissing = false;

  constructor(readonly spec: SetOperationSpec) {
    this.multiplicity = MULTIPLICITY[spec.all ? (`${spec.op} ALL` as const) : spec.op];
    this.keyOf = keySelector(Array.from({ length: spec.arity }, (_, i) => i));
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.state = context.keyedState.getValueState<RowCounts>({ name: SET_OPERATION_COUNTS_STATE });
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const context = this.context!;
    const state = this.state!;
    const backend = context.keyedState;
    const { keys, rows, lefts, rights, before, multiplicity } = this;
    const own = input === 0 ? lefts : rights;
    const keyOf = this.keyOf;
    let touched = 0;
    const { kinds, rows: records } = batch;
    for (let i = 0; i < records.length; i++) {
      const row = records[i]!;
      const kind = kinds[i]!;
      const adds = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER;
      const key = keyOf(row);
      backend.setCurrentKey(key);
      const stored = state.value();
      let slot: number;
      if (typeof stored === 'number' && stored < 0) {
        slot = -stored - 1;
      } else {
        if (stored === undefined && !adds) {
          this.missing(input);
          continue;
        }
        slot = touched++;
        const l = stored === undefined ? 0 : typeof stored === 'number' ? (stored / PACKED_LIMIT) | 0 : stored[0];
        const r = stored === undefined ? 0 : typeof stored === 'number' ? stored % PACKED_LIMIT : stored[1];
        keys[slot] = key;
        rows[slot] = row;
        lefts[slot] = l;
        rights[slot] = r;
        before[slot] = multiplicity(l, r);
        state.update(-(slot + 1));
      }
      if (adds) own[slot]!++;
      else if (own[slot]! > 0) own[slot]!--;
      else this.missing(input);
    }
    if (touched === 0) return;
    const out = this.out;
    out.clear();
    for (let slot = 0; slot < touched; slot++) {
      const l = lefts[slot]!;
      const r = rights[slot]!;
      backend.setCurrentKey(keys[slot]!);
      if (l === 0 && r === 0) state.clear();
      else state.update(l < PACKED_LIMIT && r < PACKED_LIMIT ? l * PACKED_LIMIT + r : [l, r]);
      const row = rows[slot]!;
      rows[slot] = undefined;
      keys[slot] = null;
      let delta = multiplicity(l, r) - before[slot]!;
      for (; delta > 0; delta--) out.push(RowKind.INSERT, row);
      for (; delta < 0; delta++) out.push(RowKind.DELETE, row);
    }
    if (out.size > 0) context.output.collect(out);
  }

  private missing(input: number): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context!.warn(
      `set operation ${this.context!.operatorId}: ignored a retraction on input ${input} of a row that input does not hold ` +
        '(the input retracted a row it never inserted, or state expired); further ones are ignored silently',
    );
  }
}
