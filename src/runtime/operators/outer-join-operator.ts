/**
 * Regular LEFT / RIGHT / FULL outer equi-join (Flink's StreamingJoinOperator with outer sides).
 * Both inputs are kept per join key as counted multisets (join-record-state-view.ts); each
 * distinct row of an outer input also records its number of associations, the rows of the other
 * input (with copies) that match it: equal keys and `condition` TRUE. Invariant: a stored outer
 * row's NULL-padded output row is in the emitted result exactly while its associations are 0.
 *
 * A change of one input is matched against the other input's rows of its key:
 * - accumulate (+I/+U): +I per match; an outer row without a match emits +I NULL-padded; a
 *   matched outer row of the other input whose associations go from 0 to 1 first retracts its
 *   padded row (-D);
 * - retract (-U/-D): -D per match; a retracted outer row without a match emits -D NULL-padded; a
 *   matched outer row of the other input whose associations drop to 0 emits its padded row (+I).
 * As in Flink, updates come out as -D/+I pairs, never -U/+U. A row of an outer input with a NULL
 * key is kept and padded but matches nothing; such a row of an inner input is ignored (a NULL
 * under an `IS NOT DISTINCT FROM` key matches NULL). Without keys (a nested-loop join on any
 * condition, in one subtask) each change is tested against every row of the other input. A
 * retraction of a row that is not stored is ignored, with one warning.
 */
import { isOuterSide } from '../../common/join-type.js';
import { keySelector, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch, type Row } from '../../common/row.js';
import type { JoinSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import { CountedRecordView, type CountedRow, type RowCombiner } from '../state/join-record-state-view.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { hasNull, nullPadder, nullRejectingColumns, rowCombiner } from './join-rows.js';

const OUTER_JOIN_STATE_NAMES = ['outer-join.left', 'outer-join.right'] as const;

/** The runtime implementation of a `join` job-graph node with a `joinType` (an outer join). */
export class OuterJoinOperator implements StreamOperator {
  private readonly joinKey: readonly [KeySelector, KeySelector];
  private readonly nullRejecting: readonly [readonly number[], readonly number[]];
  private readonly outer: readonly [boolean, boolean];
  private readonly combine: RowCombiner;
  private readonly pad: readonly [(row: Row) => Row, (row: Row) => Row];
  private readonly matches: (left: Row, right: Row) => boolean;
  private readonly out = new ChangeBatch();
  private readonly matched: CountedRow[] = [];
  /** The associations of each entry of `matched` before the change being processed. */
  private readonly matchedAssociations: (number | undefined)[] = [];
  private context!: OperatorContext;
  private views!: readonly [CountedRecordView, CountedRecordView];
  private warnedMissing = false;

  constructor(readonly spec: JoinSpec, compiler: ExprCompiler) {
    const joinType = spec.joinType ?? 'INNER';
    this.joinKey = [keySelector(spec.leftKeys), keySelector(spec.rightKeys)];
    this.nullRejecting = [nullRejectingColumns(spec.leftKeys, spec.nullSafe), nullRejectingColumns(spec.rightKeys, spec.nullSafe)];
    this.outer = [isOuterSide(joinType, 0), isOuterSide(joinType, 1)];
    this.combine = rowCombiner(spec.leftArity, spec.rightArity);
    this.pad = [nullPadder(0, spec.leftArity, spec.rightArity), nullPadder(1, spec.leftArity, spec.rightArity)];
    this.matches = spec.condition === undefined ? () => true : compiler.joinPredicate(spec.condition, spec.leftArity);
  }

  open(context: OperatorContext): void {
    this.context = context;
    const backend = context.keyedState;
    const view = (side: 0 | 1): CountedRecordView => new CountedRecordView(backend, { stateName: OUTER_JOIN_STATE_NAMES[side], left: side === 0, combine: this.combine });
    this.views = [view(0), view(1)];
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const side = input === 0 ? 0 : 1;
    const own = this.views[side];
    const ownOuter = this.outer[side];
    const otherOuter = this.outer[1 - side]!;
    const keyOf = this.joinKey[side];
    const columns = this.nullRejecting[side];
    const out = this.out;
    out.clear();
    const backend = this.context.keyedState;
    const { kinds, rows } = batch;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const nullKey = hasNull(row, columns);
      if (nullKey && !ownOuter) continue;
      backend.setCurrentKey(keyOf(row));
      const kind = kinds[i]!;
      const accumulate = kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER;
      if (!accumulate && !own.retract(row)) {
        this.missing();
        continue;
      }
      const total = nullKey ? 0 : this.collectMatches(row, side, otherOuter ? (accumulate ? 1 : -1) : 0);
      if (accumulate) own.add(row, ownOuter ? () => total : undefined);
      if (total === 0) {
        if (ownOuter) out.push(accumulate ? RowKind.INSERT : RowKind.DELETE, this.pad[side](row));
        continue;
      }
      const matchedAssociations = this.matchedAssociations;
      for (let m = 0; m < this.matched.length; m++) {
        const match = this.matched[m]!;
        const joined = side === 0 ? this.combine(row, match.row) : this.combine(match.row, row);
        const before = matchedAssociations[m];
        const padded = otherOuter && (accumulate ? before === 0 : before === 1) ? this.pad[1 - side]!(match.row) : undefined;
        for (let c = 0; c < match.count; c++) {
          if (padded !== undefined && accumulate) out.push(RowKind.DELETE, padded);
          out.push(accumulate ? RowKind.INSERT : RowKind.DELETE, joined);
          if (padded !== undefined && !accumulate) out.push(RowKind.INSERT, padded);
        }
      }
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  /**
   * Fills `matched` with the other input's rows under the current key that match `row`, and
   * `matchedAssociations` with their associations before this change; adds `delta` to those
   * associations (written back to state). Returns the number of matches with copies.
   */
  private collectMatches(row: Row, side: 0 | 1, delta: number): number {
    const matched = this.matched;
    const associations = this.matchedAssociations;
    matched.length = 0;
    associations.length = 0;
    let total = 0;
    const test = this.matches;
    this.views[1 - side]!.updateEntries((entry) => {
      if (!(side === 0 ? test(row, entry.row) : test(entry.row, row))) return false;
      matched.push(entry);
      associations.push(entry.associations);
      total += entry.count;
      if (delta === 0) return false;
      entry.associations! += delta;
      return true;
    });
    return total;
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`join ${this.context.operatorId}: ignored a retraction of a row that was never inserted; further ones are ignored silently`);
  }
}
