/**
 * Decorrelates EXISTS / IN / ANY / ALL subqueries (Flink's SubQueryRemoveRule with its semi and
 * anti joins): a SEMI or ANTI apply becomes a semi join (`LeftSemiJoin`) or an anti join
 * (`LeftAntiJoin`) of the outer input with the subquery on the apply's condition. The binder
 * already pulled the correlated conjuncts out of the subquery into that condition, so its
 * equalities between outer and inner columns (the correlation, and `x = v` of IN) key the join;
 * the rest (`(x = v) IS NOT FALSE` of NOT IN over nullable columns, `x > v` of ANY) is checked on
 * each pair of rows of a key, or of all rows when there is no key.
 */
import { planSemiJoin } from '../../logical/join-condition.js';
import type { LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';

/** The rule `subquery-to-semi-join`. */
export const subqueryToSemiJoin: RewriteRule = {
  name: 'subquery-to-semi-join',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'apply' || node.applyType === 'SCALAR') return node;
    return planSemiJoin(node.applyType === 'ANTI', node.input, node.subquery, node.condition, context.functions);
  },
};
