/**
 * Decorrelates scalar subqueries: a SCALAR apply becomes a LEFT join of the outer input with the
 * subquery on the apply's condition (the correlation equalities, which key the join; none for an
 * uncorrelated subquery, whose one row joins every outer row), then a projection of the outer
 * columns and the value. The binder made the subquery one row per correlation value (an aggregate
 * grouped by the correlation columns, or SINGLE_VALUE), so each outer row meets at most one row.
 * An outer row without one gets NULL, or the subquery's value over no rows when that is not NULL:
 * COUNT's 0 (the COUNT bug), read through a marker column that is TRUE on every subquery row.
 * When the value is NULL over no rows and the subquery is the value alone, the join is the result
 * (no projection), so that a WHERE comparing with it (`t.x > (SELECT MAX(v) FROM u)`) lies right
 * above the join for left-join-to-inner-join and join-to-dynamic-filter.
 */
import { SqlTypes } from '../../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { planJoin } from '../../logical/join-condition.js';
import { LogicalProject, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';

/** The rule `scalar-subquery-to-join`. */
export const scalarSubqueryToJoin: RewriteRule = {
  name: 'scalar-subquery-to-join',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'apply' || node.applyType !== 'SCALAR') return node;
    const width = node.input.schema.length;
    const valueType = node.schema[width]!.type;
    let subquery = node.subquery;
    const marked = node.emptyValue !== null;
    if (marked) {
      const exprs = [...subquery.schema.map((f, i) => Exprs.inputRef(i, f.type)), Exprs.literal(true, SqlTypes.boolean(false))];
      subquery = LogicalProject.create({ input: subquery, exprs, names: [...subquery.schema.map((f) => f.name), '$matched'] });
    }
    if (!marked && subquery.schema.length === 1) {
      // The join itself, its last column renamed to the apply's (so that a comparison above it can still become a dynamic filter).
      const renamed = LogicalProject.create({ input: subquery, exprs: [Exprs.inputRef(0, subquery.schema[0]!.type)], names: [node.schema[width]!.name] });
      return planJoin('LEFT', node.input, renamed, node.condition, context.functions);
    }
    const join = planJoin('LEFT', node.input, subquery, node.condition, context.functions);
    const value = Exprs.inputRef(width + node.valueIndex, join.schema[width + node.valueIndex]!.type);
    let result: ScalarExpr = value;
    if (marked) {
      const matched = Exprs.call('IS NOT NULL', [Exprs.inputRef(width + subquery.schema.length - 1, SqlTypes.boolean(true))], SqlTypes.boolean(false));
      result = { kind: 'case', whens: [{ when: matched, then: castTo(value, valueType) }], else: castTo(node.emptyValue!, valueType), type: valueType };
    }
    const exprs = [...node.input.schema.map((_, i) => Exprs.inputRef(i, join.schema[i]!.type)), result];
    return LogicalProject.create({ input: join, exprs, names: node.schema.map((f) => f.name) });
  },
};

/** `expr` as `type` (a cast when the types differ beyond nullability). */
function castTo(expr: ScalarExpr, type: ScalarExpr['type']): ScalarExpr {
  return expr.type.kind === type.kind && JSON.stringify({ ...expr.type, nullable: true }) === JSON.stringify({ ...type, nullable: true }) ? expr : Exprs.cast(expr, type);
}
