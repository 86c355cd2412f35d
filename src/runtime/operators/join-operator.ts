/**
 * Regular inner equi-join (Flink's StreamingJoinOperator for inner joins): each side's rows are
 * kept in keyed state under their join key (see join-record-state-view.ts for the layouts), and
 * every change on one side is matched against the other side's rows of its key (and the rest of
 * the join condition, when there is one, before the output row is built). +I/+U emit +I per
 * match; -U/-D remove one copy of the row and emit -D per match. A NULL key matches nothing and is
 * not stored (a NULL under an `IS NOT DISTINCT FROM` key matches NULL); a retraction of a row that
 * is not stored is ignored, with one warning. Without keys (a nested-loop join, in one subtask)
 * all rows of a side are under one key, and each change is matched against every row of the other
 * side: the inherent cost of a join on any condition, and nothing more (adding and retracting a
 * row of an updating input is constant time, see the counted layout).
 *
 * The state of one side, per join key, is a plain-data value in the keyed backend, so it is
 * snapshotted and redistributed by key group like any keyed state. Checkpoints of joins taken
 * before the append-only/counted layouts are never misread: their join specs lack the
 * `leftRetracts`/`rightRetracts` fields, so the graph fingerprint differs and the restore is
 * refused (or, for a materialized view's part, that part starts afresh).
 */
import { keySelector, type KeySelector } from '../../common/key-codec.js';
import { RowKind } from '../../common/row-kind.js';
import { ChangeBatch } from '../../common/row.js';
import type { JoinSpec } from '../../dataflow/job-graph.js';
import type { ExprCompiler } from '../../expr/expr-compiler.js';
import { joinRecordStateView, type JoinCondition, type JoinRecordStateView, type RowCombiner } from '../state/join-record-state-view.js';
import type { OperatorContext, StreamOperator } from '../stream-operator.js';
import { hasNull, nullRejectingColumns, rowCombiner } from './join-rows.js';

const JOIN_STATE_NAMES = ['join.left', 'join.right'] as const;

/** The runtime implementation of a `join` job-graph node. */
export class JoinOperator implements StreamOperator {
  private readonly joinKey: readonly [KeySelector, KeySelector];
  private readonly nullRejecting: readonly [readonly number[], readonly number[]];
  private readonly combine: RowCombiner;
  private readonly condition: JoinCondition | undefined;
  private readonly out = new ChangeBatch();
  private context!: OperatorContext;
  private views!: readonly [JoinRecordStateView, JoinRecordStateView];
  private warnedMissing = false;

  constructor(readonly spec: JoinSpec, compiler: ExprCompiler) {
    this.joinKey = [keySelector(spec.leftKeys), keySelector(spec.rightKeys)];
    this.nullRejecting = [nullRejectingColumns(spec.leftKeys, spec.nullSafe), nullRejectingColumns(spec.rightKeys, spec.nullSafe)];
    this.combine = rowCombiner(spec.leftArity, spec.rightArity);
    this.condition = spec.condition === undefined ? undefined : compiler.joinPredicate(spec.condition, spec.leftArity);
  }

  open(context: OperatorContext): void {
    this.context = context;
    const backend = context.keyedState;
    const { combine, condition } = this;
    this.views = [
      joinRecordStateView(backend, { stateName: JOIN_STATE_NAMES[0], left: true, combine, condition }, this.spec.leftRetracts ?? false),
      joinRecordStateView(backend, { stateName: JOIN_STATE_NAMES[1], left: false, combine, condition }, this.spec.rightRetracts ?? false),
    ];
  }

  processBatch(batch: ChangeBatch, input: number): void {
    const side = input === 0 ? 0 : 1;
    const own = this.views[side];
    const other = this.views[1 - side]!;
    const keyOf = this.joinKey[side];
    const columns = this.nullRejecting[side];
    const out = this.out;
    out.clear();
    const backend = this.context.keyedState;
    const { kinds, rows } = batch;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (hasNull(row, columns)) continue;
      backend.setCurrentKey(keyOf(row));
      const kind = kinds[i]!;
      if (kind === RowKind.INSERT || kind === RowKind.UPDATE_AFTER) {
        own.add(row);
        other.emitJoined(row, RowKind.INSERT, out);
      } else if (own.retract(row)) other.emitJoined(row, RowKind.DELETE, out);
      else this.missing();
    }
    if (out.size > 0) this.context.output.collect(out);
  }

  private missing(): void {
    if (this.warnedMissing) return;
    this.warnedMissing = true;
    this.context.warn(`join ${this.context.operatorId}: ignored a retraction of a row that was never inserted; further ones are ignored silently`);
  }
}
