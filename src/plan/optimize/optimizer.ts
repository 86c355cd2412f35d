/**
 * The logical optimizer: an ordered list of named, semantics-preserving rewrite passes, each of
 * which can be switched off (`SET 'table.optimizer.<name>.enabled' = 'false'`) to isolate a
 * problem. A pass reports whether it changed anything.
 */
import type { FunctionRegistry } from '../../expr/function-registry.js';
import { inputsOf, withInputs, type LogicalNode } from '../logical/logical-node.js';
import { extractJoinKeys } from './rules/extract-join-keys.js';
import { joinToDynamicFilter } from './rules/join-to-dynamic-filter.js';
import { dropUnusedRankNumber } from './rules/drop-unused-rank-number.js';
import { pushFilterBelowWindowTvf } from './rules/push-filter-below-window-tvf.js';
import { pushFilterIntoJoin } from './rules/push-filter-into-join.js';
import { pushLimitIntoRank } from './rules/push-limit-into-rank.js';
import { reduceConstantExpressions } from './rules/reduce-constant-expressions.js';
import { removeAlwaysTrueFilter } from './rules/remove-always-true-filter.js';
import { leftJoinToInnerJoin } from './rules/left-join-to-inner-join.js';
import { scalarSubqueryToJoin } from './rules/scalar-subquery-to-join.js';
import { subqueryToSemiJoin } from './rules/subquery-to-semi-join.js';

/** What rules may consult. */
export interface RewriteContext {
  readonly functions: FunctionRegistry;
}

/** A rewrite of one node (its inputs are already rewritten); returns the node itself when it does not apply. */
export interface RewriteRule {
  readonly name: string;
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode;
}

/** The passes, in the order they run. */
export const DEFAULT_RULES: readonly RewriteRule[] = [subqueryToSemiJoin, scalarSubqueryToJoin, leftJoinToInnerJoin, reduceConstantExpressions, removeAlwaysTrueFilter, pushFilterIntoJoin, extractJoinKeys, joinToDynamicFilter, pushFilterBelowWindowTvf, pushLimitIntoRank, dropUnusedRankNumber];

/** Applies every enabled rule bottom-up over the plan. */
export function optimize(plan: LogicalNode, context: RewriteContext, disabled: ReadonlySet<string> = new Set(), rules: readonly RewriteRule[] = DEFAULT_RULES): LogicalNode {
  let current = plan;
  for (const rule of rules) {
    if (!disabled.has(rule.name)) current = applyBottomUp(current, rule, context);
  }
  return current;
}

function applyBottomUp(node: LogicalNode, rule: RewriteRule, context: RewriteContext): LogicalNode {
  const inputs = inputsOf(node);
  const rewrittenInputs = inputs.map((i) => applyBottomUp(i, rule, context));
  const changed = rewrittenInputs.some((r, i) => r !== inputs[i]);
  return rule.rewrite(changed ? withInputs(node, rewrittenInputs) : node, context);
}
