/**
 * Incremental GROUP BY, as Flink's GroupAggregate with per-batch folding: a batch is folded into
 * the groups' accumulators, then every group the batch touched emits at most one change, in
 * first-touch order — +I for a new group, -U (when `emitUpdateBefore`) then +U for a changed one,
 * -D when its last row is retracted (its state is then cleared), nothing when its output did not
 * change or it appeared and disappeared within the batch. A retraction for a group without rows
 * is ignored, as Flink does, with one warning per operator.
 *
 * A global aggregate (no keys) is a one-row table, as in SQL: unlike Flink's streaming aggregate,
 * which emits nothing until the first row, it emits the row over no input (COUNT 0, SUM NULL) when
 * the job starts afresh, changes it with -U/+U, and goes back to it when every row is retracted.
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
    if (this.spec.keys.length === 0 && !this.restored && context.subtask === 0) {
      const out = this.out;
      out.clear();
      out.push(RowKind.INSERT, this.program.emptyRow());
      context.output.collect(out);
    }
  }

  processBatch(batch: ChangeBatch): void {
    const program = this.program;
    invariant(program !== undefined, 'GroupAggregateOperator.processBatch called before open');
    const touched = program.fold(batch.kinds, batch.rows);
    if (touched === 0) return;
    const out = this.out;
    out.clear();
    program.emit(touched, out);
    if (out.size > 0) this.context!.output.collect(out);
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
