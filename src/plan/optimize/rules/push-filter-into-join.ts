/**
 * Flink's FilterIntoJoinRule for inner joins: the conjuncts of a filter over a join (the WHERE
 * clause, or the non-equi part of the ON condition) that read the columns of one input only move
 * below the join onto that input, so that the join neither stores nor matches rows that cannot
 * produce output. Conjuncts reading both inputs or none, and those calling a non-deterministic
 * function, stay above. Moved filters are pushed further when the input is itself a join. Above an
 * outer join only conjuncts on a preserved input move (LEFT: the left one, RIGHT: the right one,
 * FULL: none): on a NULL-padded input they would keep padded rows that the filter removes. The
 * conjuncts of an outer join's own condition that read only its NULL-padded input move onto it.
 * A regular join stays one: its output has no time attributes (logical-node.ts, joinSide), so time
 * bounds in a filter above it read plain TIMESTAMPs (the binder moves a WHERE into the join it
 * reads before, where such bounds make an interval join: bind-join.ts, bindJoinWhere).
 */
import { isDeterministic } from '../../logical/deterministic.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { LogicalFilter, LogicalJoin, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';

/** The rule `push-filter-into-join`. */
export const pushFilterIntoJoin: RewriteRule = {
  name: 'push-filter-into-join',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind === 'join') return pushJoinConditionIntoPaddedSide(node, context);
    if (node.kind !== 'filter' || node.input.kind !== 'join') return node;
    const join = node.input;
    const leftArity = join.left.schema.length;
    const left: ScalarExpr[] = [];
    const right: ScalarExpr[] = [];
    const rest: ScalarExpr[] = [];
    const pushLeft = join.joinType === 'INNER' || join.joinType === 'LEFT';
    const pushRight = join.joinType === 'INNER' || join.joinType === 'RIGHT';
    for (const conjunct of conjunctsOf(node.condition)) {
      const columns = inputRefsOf(conjunct);
      if (columns.length === 0 || !isDeterministic(conjunct, context.functions)) rest.push(conjunct);
      else if (pushLeft && columns.every((c) => c < leftArity)) left.push(conjunct);
      else if (pushRight && columns.every((c) => c >= leftArity)) right.push(remapInputs(conjunct, (ref) => Exprs.inputRef(ref.index - leftArity, ref.type)));
      else rest.push(conjunct);
    }
    if (left.length === 0 && right.length === 0) return node;
    const filtered = (input: LogicalNode, conjuncts: readonly ScalarExpr[]): LogicalNode =>
      conjuncts.length === 0 ? input : pushFilterIntoJoin.rewrite(LogicalFilter.create({ input, condition: conjunction(conjuncts) }), context);
    const { schema: _schema, kind: _kind, ...fields } = join;
    const pushed: LogicalNode = LogicalJoin.create({ ...fields, left: filtered(join.left, left), right: filtered(join.right, right) });
    return rest.length === 0 ? pushed : LogicalFilter.create({ input: pushed, condition: conjunction(rest) });
  },
};

/**
 * Flink's JoinConditionPushRule for outer joins: a conjunct of the match condition that reads only
 * the NULL-padded input (the right one of a LEFT join, the left one of a RIGHT join) filters that
 * input instead: its rows that fail it can match nothing either way.
 */
function pushJoinConditionIntoPaddedSide(join: Extract<LogicalNode, { kind: 'join' }>, context: RewriteContext): LogicalNode {
  if (join.condition === null || (join.joinType !== 'LEFT' && join.joinType !== 'RIGHT')) return join;
  const leftArity = join.left.schema.length;
  const paddedIsRight = join.joinType === 'LEFT';
  const onPadded = (columns: number[]): boolean => columns.length > 0 && columns.every((c) => (c >= leftArity) === paddedIsRight);
  const moved: ScalarExpr[] = [];
  const kept: ScalarExpr[] = [];
  for (const conjunct of conjunctsOf(join.condition)) {
    if (onPadded(inputRefsOf(conjunct)) && isDeterministic(conjunct, context.functions)) moved.push(conjunct);
    else kept.push(conjunct);
  }
  if (moved.length === 0) return join;
  const input = paddedIsRight ? join.right : join.left;
  const condition = conjunction(paddedIsRight ? moved.map((c) => remapInputs(c, (ref) => Exprs.inputRef(ref.index - leftArity, ref.type))) : moved);
  const filtered = pushFilterIntoJoin.rewrite(LogicalFilter.create({ input, condition }), context);
  const rest = kept.length === 0 ? null : conjunction(kept);
  const { schema: _schema, kind: _kind, ...fields } = join;
  return LogicalJoin.create(paddedIsRight ? { ...fields, right: filtered, condition: rest } : { ...fields, left: filtered, condition: rest });
}

/** Re-exported for the rules that import it from here. */
export { isDeterministic } from '../../logical/deterministic.js';
