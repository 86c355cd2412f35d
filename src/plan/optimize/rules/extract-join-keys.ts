/**
 * The rest of Flink's FilterIntoJoinRule: the conjuncts of a filter right above an inner join that
 * equate an expression of each input (`=`, or `IS NOT DISTINCT FROM`; also an equality common to
 * every branch of an OR) become keys of the join, planned as the binder plans an ON condition
 * (plan/logical/join-condition.ts). The binder already keys a FROM list by its WHERE; this rule
 * keys what it cannot see: `a JOIN b ON TRUE WHERE a.k = b.k`, a CROSS JOIN inside an explicit
 * join (`a CROSS JOIN b JOIN c ON ... WHERE a.k = b.k`), and joins other rules produce (decorrelated
 * subqueries). Runs after push-filter-into-join, which moves a conjunct reading the inputs of a
 * nested join down onto that join, where this rule then keys it. Conjuncts calling a
 * non-deterministic function stay in the filter; a window join is left as it is, and a regular
 * join stays regular (its output has no time attributes, which an interval join would bring back).
 */
import { SqlTypes } from '../../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { planJoin, splitJoinCondition } from '../../logical/join-condition.js';
import { LogicalFilter, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';
import { isDeterministic } from './push-filter-into-join.js';

/** The rule `extract-join-keys`. */
export const extractJoinKeys: RewriteRule = {
  name: 'extract-join-keys',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'filter' || node.input.kind !== 'join') return node;
    const join = node.input;
    if (join.joinType !== 'INNER' || join.interval?.windowJoin === true) return node;
    const width = join.left.schema.length;
    const conjuncts = conjunctsOf(node.condition);
    const deterministic = conjuncts.filter((c) => isDeterministic(c, context.functions));
    const others = conjuncts.filter((c) => !isDeterministic(c, context.functions));
    if (deterministic.length === 0) return node;
    const found = splitJoinCondition(conjunction(deterministic), width, context.functions).keys;
    if (!found.some((k) => join.interval === undefined || !k.nullSafe)) return node;
    const existing = join.leftKeys.map((l, i): ScalarExpr => {
      const r = join.rightKeys[i]!;
      const args = [Exprs.inputRef(l, join.left.schema[l]!.type), Exprs.inputRef(width + r, join.right.schema[r]!.type)];
      return Exprs.call(join.nullSafe?.[i] === true ? 'IS NOT DISTINCT FROM' : '=', args, SqlTypes.boolean());
    });
    const keyed = planJoin('INNER', join.left, join.right, conjunction([...existing, ...deterministic]), context.functions, join.interval ?? null);
    return others.length === 0 ? keyed : LogicalFilter.create({ input: keyed, condition: conjunction(others) });
  },
};
