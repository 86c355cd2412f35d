/**
 * Part of Flink's FlinkFilterJoinRule (outer join simplification): a LEFT join right below a filter
 * that no NULL-padded row can pass becomes an inner join. A padded row has NULL in every right
 * column, so a conjunct comparing a right column (`=`, `<>`, `<`, `<=`, `>`, `>=`, or
 * `IS NOT NULL`; through casts) is never TRUE for it. The join's match condition joins the filter
 * (an inner join's residual is a filter above it). This is how a scalar subquery compared in WHERE
 * (`t.x > (SELECT MAX(v) FROM u)`, a LEFT join after scalar-subquery-to-join) becomes the inner
 * join that join-to-dynamic-filter turns into a dynamic filter.
 */
import { SqlTypes } from '../../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import type { LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunctsOf } from './conjuncts.js';

const NULL_REJECTING = new Set(['=', '<>', '<', '<=', '>', '>=', 'IS NOT NULL']);

/** The rule `left-join-to-inner-join`. */
export const leftJoinToInnerJoin: RewriteRule = {
  name: 'left-join-to-inner-join',
  rewrite(node: LogicalNode, _context: RewriteContext): LogicalNode {
    if (node.kind !== 'filter' || node.input.kind !== 'join') return node;
    const join = node.input;
    if (join.joinType !== 'LEFT' || join.interval !== undefined) return node;
    const width = join.left.schema.length;
    const readsRight = (e: ScalarExpr): boolean => {
      let current = e;
      while (current.kind === 'cast') current = current.expr;
      return current.kind === 'input-ref' && current.index >= width;
    };
    const rejectsPadded = conjunctsOf(node.condition).some((c) => c.kind === 'call' && NULL_REJECTING.has(c.name) && c.args.some(readsRight));
    if (!rejectsPadded) return node;
    const inner: LogicalNode = { ...join, joinType: 'INNER', condition: null };
    const condition = join.condition === null ? node.condition : Exprs.call('AND', [join.condition, node.condition], SqlTypes.boolean(join.condition.type.nullable || node.condition.type.nullable));
    return { ...node, input: inner, condition };
  },
};
