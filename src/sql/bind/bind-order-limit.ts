/**
 * ORDER BY / LIMIT of a streaming query, as Flink plans them: `ORDER BY ... LIMIT n` keeps the
 * first n rows in that order up to date (a Top-N over the whole result, updated with retractions
 * as better rows arrive), and `LIMIT n` alone keeps the first n rows to arrive. ORDER BY without
 * LIMIT and OFFSET are refused: a sorted stream would never be final.
 */
import { WeirError } from '../../common/errors.js';
import type { OrderKey } from '../../common/order-key.js';
import { SqlTypes } from '../../common/sql-type.js';
import { Exprs } from '../../expr/scalar-expr.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { Expr, OrderItem } from '../parse/ast.js';
import { bindExpr } from './bind-expr.js';
import type { BinderContext, BoundRelation } from './binder-context.js';
import { Scope } from './scope.js';

/** The ORDER BY, LIMIT and OFFSET clauses of a query. */
export interface OrderLimitClauses {
  readonly orderBy: readonly OrderItem[];
  readonly limit?: Expr;
  readonly offset?: Expr;
}

/** `result` ordered and limited by `clauses`; `result` itself when it has none. */
export function bindOrderLimit(result: BoundRelation, clauses: OrderLimitClauses, ctx: BinderContext): BoundRelation {
  const { orderBy, limit, offset } = clauses;
  if (offset !== undefined) {
    throw new WeirError('UNSUPPORTED', 'OFFSET is not supported in streaming queries', { span: offset.span, hint: 'filter a ROW_NUMBER() instead: WHERE rn > m AND rn <= m + n' });
  }
  if (limit === undefined) {
    if (orderBy.length === 0) return result;
    throw new WeirError('UNSUPPORTED', 'ORDER BY in a streaming query needs a LIMIT', {
      span: orderBy[0]!.span,
      hint: 'add LIMIT n: the first n rows in that order are then kept up to date',
    });
  }
  const count = limitCount(limit);
  const orderKeys = orderBy.map((item) => orderKey(item, result, ctx));
  const rank: LogicalNode = {
    kind: 'rank',
    rankType: 'ROW_NUMBER',
    input: result.plan,
    partitionKeys: [],
    orderKeys,
    limit: count,
    schema: [...result.schema, { name: '$row_number', type: SqlTypes.bigint(false) }],
  };
  const exprs = result.schema.map((field, i) => Exprs.inputRef(i, field.type));
  return { plan: { kind: 'project', input: rank, exprs, schema: result.schema }, schema: result.schema };
}

function limitCount(limit: Expr): number {
  if (limit.kind === 'literal' && limit.type === 'number' && /^\d+$/.test(limit.text)) return Number(limit.text);
  throw new WeirError('INVALID_ARGUMENT', 'LIMIT takes a non-negative integer', { span: limit.span });
}

/** An ORDER BY item as a column of the result: a 1-based position, an output column name, or an expression equal to one. */
function orderKey(item: OrderItem, result: BoundRelation, ctx: BinderContext): OrderKey {
  if (item.nullsFirst !== undefined) {
    throw new WeirError('UNSUPPORTED', 'NULLS FIRST / NULLS LAST are not supported in ORDER BY', { span: item.span, hint: 'NULL sorts before every value' });
  }
  const expr = item.expr;
  if (expr.kind === 'literal' && expr.type === 'number' && /^\d+$/.test(expr.text)) {
    const position = Number(expr.text);
    if (position < 1 || position > result.schema.length) {
      throw new WeirError('INVALID_ARGUMENT', `ORDER BY position ${position} is not in the select list (1 to ${result.schema.length})`, { span: expr.span });
    }
    return { index: position - 1, descending: item.descending };
  }
  const bound = bindExpr(expr, { scope: Scope.of(result.schema, undefined), functions: ctx.functions, clause: 'ORDER BY' });
  if (bound.kind !== 'input-ref') {
    throw new WeirError('UNSUPPORTED', 'ORDER BY in a streaming query takes columns of the select list', {
      span: expr.span,
      hint: 'add the expression to the select list with an alias and order by the alias',
    });
  }
  return { index: bound.index, descending: item.descending };
}
