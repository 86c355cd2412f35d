/**
 * The logical optimizer, with two kinds of rules as DataFusion's:
 *
 * - the **analyzer's** ({@link ANALYZER_RULES}): rewrites a plan needs to be planned at all (a
 *   filter bounding a rank's number becomes its Top-N range). They always run; naming one in
 *   `table.optimizer.<name>.enabled` is an error.
 * - the **optimizer's** ({@link DEFAULT_RULES}): named, semantics-preserving rewrites, each of
 *   which can be switched off (`SET 'table.optimizer.<name>.enabled' = 'false'`).
 *
 * A pass applies the analyzer's rules and then the enabled optimizer rules, in order, each
 * bottom-up over the whole plan; passes repeat until one changes nothing (a fixpoint) or
 * `maxPasses` (`table.optimizer.max-passes`) is reached: then the last plan is used, and
 * {@link OptimizeResult.converged} says so (tests assert it). The analyzer's rules run in every
 * pass because an optimizer rule may produce the shape they rewrite (a filter on a rank's number
 * pushed below a join onto the rank). Every rewrite of a node is checked to keep that node's
 * schema (column names, types, nullability, time attributes); a rule that changes it is a bug,
 * reported as INTERNAL_ERROR naming the rule and both schemas.
 */
import { WeirError } from '../../common/errors.js';
import { formatType, sameType, timeAttributeOf } from '../../common/sql-type.js';
import type { Schema } from '../../common/schema.js';
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
  /** The resolved session zone (`table.local-time-zone`) constants are folded in; UTC when absent. */
  readonly timeZone?: string;
}

/**
 * A rewrite of one node (its inputs are already rewritten); returns the node itself (the same
 * object) when it does not apply, so that a pass can tell that nothing changed. The node it
 * returns has the schema of the node it was given.
 */
export interface RewriteRule {
  readonly name: string;
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode;
}

/**
 * The rewrites every plan gets, before the optimizer's: without them some plans cannot be planned
 * (a subquery runs only once decorrelated into joins). Not switchable.
 */
export const ANALYZER_RULES: readonly RewriteRule[] = [subqueryToSemiJoin, scalarSubqueryToJoin, pushLimitIntoRank];

/** The optimizer's rules, in the order a pass applies them; each can be switched off by name. */
export const DEFAULT_RULES: readonly RewriteRule[] = [leftJoinToInnerJoin, reduceConstantExpressions, removeAlwaysTrueFilter, pushFilterIntoJoin, extractJoinKeys, joinToDynamicFilter, pushFilterBelowWindowTvf, dropUnusedRankNumber];

/** The default of `table.optimizer.max-passes`. */
export const DEFAULT_MAX_PASSES = 16;

/** How the optimizer runs. */
export interface PhaseOptions {
  /** Optimizer rule names not applied. */
  readonly disabled?: ReadonlySet<string>;
  /** At most this many passes over the plan (at least 1). */
  readonly maxPasses?: number;
}

/** An optimized plan, and whether the rules reached their fixpoint. */
export interface OptimizeResult {
  readonly plan: LogicalNode;
  /** Passes run (the last one changed nothing when converged). */
  readonly passes: number;
  /** False when the last allowed pass still changed the plan. */
  readonly converged: boolean;
  /** The rules that changed the plan in the last pass (empty when converged). */
  readonly changedInLastPass: readonly string[];
}

/** Runs the analyzer's and the enabled optimizer rules to their fixpoint (or the pass limit) and returns the plan. */
export function optimize(plan: LogicalNode, context: RewriteContext, disabled: ReadonlySet<string> = new Set(), rules: readonly RewriteRule[] = DEFAULT_RULES, maxPasses = DEFAULT_MAX_PASSES): LogicalNode {
  return optimizePlan(plan, context, { disabled, maxPasses }, rules).plan;
}

/** {@link optimize}, also saying whether it converged. */
export function optimizePlan(plan: LogicalNode, context: RewriteContext, options: PhaseOptions = {}, rules: readonly RewriteRule[] = DEFAULT_RULES): OptimizeResult {
  const disabled = options.disabled ?? new Set<string>();
  return runToFixpoint(plan, [...ANALYZER_RULES, ...rules.filter((r) => !disabled.has(r.name))], context, options.maxPasses);
}

/** Applies `rules` in order, each bottom-up, pass after pass until a pass changes nothing or `maxPasses` passes ran. */
export function runToFixpoint(plan: LogicalNode, rules: readonly RewriteRule[], context: RewriteContext, maxPasses = DEFAULT_MAX_PASSES): OptimizeResult {
  const limit = Math.max(1, maxPasses);
  let current = plan;
  let changed: string[] = [];
  for (let pass = 1; pass <= limit; pass++) {
    changed = [];
    for (const rule of rules) {
      const next = applyBottomUp(current, rule, context);
      if (next !== current) changed.push(rule.name);
      current = next;
    }
    if (changed.length === 0) return { plan: current, passes: pass, converged: true, changedInLastPass: [] };
  }
  return { plan: current, passes: limit, converged: false, changedInLastPass: changed };
}

function applyBottomUp(node: LogicalNode, rule: RewriteRule, context: RewriteContext): LogicalNode {
  const inputs = inputsOf(node);
  const rewrittenInputs = inputs.map((i) => applyBottomUp(i, rule, context));
  const changed = rewrittenInputs.some((r, i) => r !== inputs[i]);
  const before = changed ? withInputs(node, rewrittenInputs) : node;
  const after = rule.rewrite(before, context);
  if (after !== before) checkSchemaKept(rule.name, before, after);
  return after;
}

/** Fails with INTERNAL_ERROR when `after` (what `rule` made of `before`) has another schema. */
export function checkSchemaKept(rule: string, before: LogicalNode, after: LogicalNode): void {
  if (sameSchema(before.schema, after.schema)) return;
  throw new WeirError('INTERNAL_ERROR', `optimizer rule '${rule}' changed the schema of a ${before.kind} node from ${formatSchema(before.schema)} to ${formatSchema(after.schema)} (as a ${after.kind} node)`);
}

/** Same column names, types (with nullability) and time attributes, in the same order. */
export function sameSchema(a: Schema, b: Schema): boolean {
  if (a === b) return true;
  return a.length === b.length && a.every((f, i) => f.name === b[i]!.name && sameType(f.type, b[i]!.type) && timeAttributeOf(f.type) === timeAttributeOf(b[i]!.type));
}

/** `[a BIGINT NOT NULL, ts TIMESTAMP(3) *ROWTIME*]`. */
export function formatSchema(schema: Schema): string {
  return `[${schema.map((f) => `${f.name} ${formatType(f.type)}`).join(', ')}]`;
}
