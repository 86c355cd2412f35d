/**
 * Incremental GROUP BY, as Flink's GroupAggregate with per-batch folding: a batch is folded into
 * the groups' accumulators, then every group the batch touched emits at most one change, in
 * first-touch order — +I for a new group, -U (when `emitUpdateBefore`) then +U for a changed one,
 * -D when its last row is retracted (its state is then cleared), nothing when its output did not
 * change or it appeared and disappeared within the batch. A retraction for a group without rows
 * is ignored, as Flink does, with one warning per operator.
 *
 * A global aggregate (no keys) is a one-row table, as in SQL: unlike Flink's streaming aggregate,
 * which emits nothing until the first row, it has the row over no input (COUNT 0, SUM NULL) from
 * the start, changes it with -U/+U, and goes back to it when every row is retracted. A job started
 * afresh emits that empty row only when nothing came before the first checkpoint barrier (before
 * the barrier, as Flink's prepareSnapshotPreBarrier) or before the end of the input: rows that
 * arrive first make the first row +I of their result. So no result, view or commit ever misses
 * the row, and an expression over it that only the empty input breaks (`COUNT(*) / COUNT(x)`, 0 /
 * 0) is not evaluated while rows are on their way. A job without checkpoints over an unbounded
 * input shows nothing until a row comes, as Flink.
 *
 * Accumulators live in keyed state as plain data (see GroupAccumulator), so that checkpoints can
 * snapshot them; every change is written back to state once per touched group and batch (see
 * group-aggregate-codegen.ts), so no backend needs to return its stored object.
 */
import { invariant } from '../../common/errors.js';
import { ChangeBatch } from '../../common/row.js';
import type { GroupAggregateSpec } from '../../dataflow/job-graph.js';
import {
  generateGroupAggregate,
  type GroupAccumulator,
  type GroupAggregateBindings,
  type GroupAggregateProgram,
} from '../aggregates/group-aggregate-codegen.js';
import { RowKind } from '../../common/row-kind.js';
import type { OperatorContext, StateInitializationContext, StreamOperator } from '../stream-operator.js';

/** Name of the keyed value state that holds the groups' accumulators. */
export const GROUP_ACCUMULATOR_STATE = 'group-aggregate.accumulator';

/** The runtime implementation of a `group-aggregate` job-graph node. */
export class GroupAggregateOperator implements StreamOperator {
  private readonly instantiate: (bindings: GroupAggregateBindings) => GroupAggregateProgram;
  private readonly out = new ChangeBatch();
  private program: GroupAggregateProgram | undefined;
  private context: OperatorContext | undefined;
  private warnedRetractionWithoutState = false;
  private restored = false;
  /** A global aggregate started afresh whose first row is not out yet (see the module comment). */
  private firstRowPending = false;

  /** Generates the operator's code; throws a WeirError when an aggregate call is not supported. */
  constructor(readonly spec: GroupAggregateSpec) {
    this.instantiate = generateGroupAggregate(spec);
  }

  initializeState(context: StateInitializationContext): void {
    this.restored = context.isRestored();
  }

  open(context: OperatorContext): void {
    this.context = context;
    this.program = this.instantiate({
      backend: context.keyedState,
      state: context.keyedState.getValueState<GroupAccumulator>({ name: GROUP_ACCUMULATOR_STATE }),
      onRetractionWithoutState: () => this.retractionWithoutState(),
    });
    // A restored global aggregate emitted its row before the checkpoint (the empty row at least).
    this.firstRowPending = this.spec.keys.length === 0 && !this.restored && context.subtask === 0;
  }

  processBatch(batch: ChangeBatch): void {
    const program = this.program;
    invariant(program !== undefined, 'GroupAggregateOperator.processBatch called before open');
    const touched = program.fold(batch.kinds, batch.rows);
    if (touched === 0) return;
    const out = this.out;
    out.clear();
    program.emit(touched, out);
    if (out.size === 0) return;
    if (this.firstRowPending) {
      // The global row's first change is from the empty row (-U empty, +U row): the empty row never
      // went out, so the row is inserted instead.
      this.firstRowPending = false;
      const row = out.rows[out.size - 1]!;
      out.clear();
      out.push(RowKind.INSERT, row);
    }
    this.context!.output.collect(out);
  }

  /** Before the barrier: the empty row of a global aggregate that received nothing yet goes out. */
  snapshotState(): undefined {
    this.emitPendingEmptyRow();
    return undefined;
  }

  /** The input ended: the empty row of a global aggregate that received nothing goes out. */
  endInput(): void {
    this.emitPendingEmptyRow();
  }

  private emitPendingEmptyRow(): void {
    if (!this.firstRowPending) return;
    this.firstRowPending = false;
    const out = this.out;
    out.clear();
    out.push(RowKind.INSERT, this.program!.emptyRow());
    this.context!.output.collect(out);
  }

  private retractionWithoutState(): void {
    if (this.warnedRetractionWithoutState) return;
    this.warnedRetractionWithoutState = true;
    this.context!.warn(
      `group aggregate ${this.context!.operatorId}: ignored a retraction for a group that has no rows ` +
        '(the input retracted a row it never inserted, or state expired); further ones are ignored silently',
    );
  }
}
