/**
 * Binds `ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...)` in a select list (Flink's Top-N and
 * deduplication pattern): a rank node over the FROM relation adds the row number as a column,
 * which the select item then reads. Partition and order keys must be columns.
 */
import { WeirError } from '../../common/errors.js';
import { SqlTypes } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall } from '../parse/ast.js';
import { bindExpr, callName, visitExpr, type ExprBindContext } from './bind-expr.js';

/** True when the expression holds a call with an OVER clause. */
export function containsWindowCall(expr: Expr): boolean {
  let found = false;
  visitExpr(expr, (e) => {
    if (e.kind === 'call' && e.over !== undefined) found = true;
  });
  return found;
}

/**
 * The rank node for the one ROW_NUMBER() call among `calls`, and a function that binds select
 * items with that call read from the rank column.
 */
export function bindRank(input: LogicalNode, calls: readonly FunctionCall[], ctx: ExprBindContext): { plan: LogicalNode; bind: (expr: Expr) => ScalarExpr } {
  const [call, other] = calls;
  if (call === undefined) throw new WeirError('INTERNAL_ERROR', 'bindRank without a window call');
  if (other !== undefined) throw new WeirError('UNSUPPORTED', 'only one ROW_NUMBER() per query is supported', { span: other.span });
  const name = callName(call);
  if (name !== 'ROW_NUMBER') throw new WeirError('UNSUPPORTED', `${name}(...) OVER is not supported yet; ROW_NUMBER() OVER is`, { span: call.span });
  const over = call.over!;
  if (over.ref !== undefined || over.frame !== undefined) throw new WeirError('UNSUPPORTED', 'ROW_NUMBER() takes OVER (PARTITION BY ... ORDER BY ...) without a frame or window name', { span: over.span });
  if (over.orderBy.length === 0) throw new WeirError('INVALID_ARGUMENT', 'ROW_NUMBER() needs ORDER BY in its OVER clause', { span: over.span });
  const column = (expr: Expr): number => {
    const bound = bindExpr(expr, ctx);
    if (bound.kind !== 'input-ref') throw new WeirError('UNSUPPORTED', 'PARTITION BY and ORDER BY of ROW_NUMBER() must name columns', { span: expr.span });
    return bound.index;
  };
  const partitionKeys = over.partitionBy.map(column);
  const orderKeys = over.orderBy.map((o) => ({ index: column(o.expr), descending: o.descending }));
  const rankIndex = input.schema.length;
  const schema = [...input.schema, { name: '$row_number', type: SqlTypes.bigint(false) }];
  const plan: LogicalNode = { kind: 'rank', input, partitionKeys, orderKeys, limit: undefined, schema };
  const rank = Exprs.inputRef(rankIndex, SqlTypes.bigint(false));
  const bind = (expr: Expr): ScalarExpr => (expr === call ? rank : bindExpr(expr, ctx));
  return { plan, bind };
}

/** The calls with an OVER clause in the expressions. */
export function windowCalls(exprs: readonly Expr[]): FunctionCall[] {
  const calls: FunctionCall[] = [];
  for (const expr of exprs) visitExpr(expr, (e) => e.kind === 'call' && e.over !== undefined && calls.push(e));
  return calls;
}
