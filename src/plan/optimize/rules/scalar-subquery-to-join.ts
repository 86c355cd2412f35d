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
 *
 * An uncorrelated subquery that aggregates without GROUP BY has a row over no rows; the join
 * supplies that case itself (NULL, or the value over no rows), so the subquery keeps only its row
 * over some rows (see {@link overSomeRows}): the expression over its aggregates is then never
 * computed over no rows, where it may fail (`COUNT(*) / COUNT(DISTINCT a)`, 0 / 0) although no outer
 * row needs it — PostgreSQL computes a scalar subquery only for the rows that read it.
 */
import { SqlTypes } from '../../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { planJoin } from '../../logical/join-condition.js';
import { LogicalAggregate, LogicalFilter, LogicalProject, type AggregateCall, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';

/** The rule `scalar-subquery-to-join`. */
export const scalarSubqueryToJoin: RewriteRule = {
  name: 'scalar-subquery-to-join',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'apply' || node.applyType !== 'SCALAR') return node;
    const width = node.input.schema.length;
    const valueType = node.schema[width]!.type;
    let subquery = overSomeRows(node.subquery);
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

/**
 * `plan`, when it is an aggregate without GROUP BY under projections that compute something over
 * its aggregates, with its row over no rows left out: the aggregate counts its rows too and a
 * filter keeps its row while that count is above 0 (an update back to no rows becomes a
 * retraction). Any other plan as it is.
 */
function overSomeRows(plan: LogicalNode): LogicalNode {
  const projects: LogicalProject[] = [];
  let top = plan;
  while (top.kind === 'project') {
    projects.push(top);
    top = top.input;
  }
  if (top.kind !== 'aggregate' || top.keys.length > 0) return plan;
  // Aggregates alone are NULL or 0 over no rows, never an error: only an expression over them can fail.
  if (projects.every((project) => project.exprs.every((expr) => expr.kind === 'input-ref'))) return plan;
  const bigint = SqlTypes.bigint(false);
  const rows: AggregateCall = { function: 'COUNT', args: [], argTypes: [], distinct: false, filter: null, type: bigint, name: '$rows' };
  const counted = LogicalAggregate.create({ input: top.input, keys: [], calls: [...top.calls, rows] });
  const someRows = Exprs.call('>', [Exprs.inputRef(counted.schema.length - 1, bigint), Exprs.literal(0, bigint)], SqlTypes.boolean(false));
  const filtered = LogicalFilter.create({ input: counted, condition: someRows });
  let result: LogicalNode = LogicalProject.create({ input: filtered, exprs: top.schema.map((f, i) => Exprs.inputRef(i, f.type)), names: top.schema.map((f) => f.name) });
  for (const project of projects.reverse()) result = LogicalProject.create({ input: result, exprs: project.exprs, names: project.schema.map((f) => f.name) });
  return result;
}
