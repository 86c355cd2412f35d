/**
 * Binds `ROW_NUMBER() | RANK() | DENSE_RANK() OVER (PARTITION BY ... ORDER BY ...)` in a select
 * list (Flink's Top-N and deduplication pattern): a rank node over the FROM relation adds the
 * row's number as a column, which the select item then reads. Partition and order keys must be
 * columns; one ranking call per query.
 */
import { WeirError } from '../../common/errors.js';
import { SqlTypes } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import type { LogicalNode, RankType } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall, WindowSpec } from '../parse/ast.js';
import { bindExpr, callName, visitExpr, type ExprBindContext } from './bind-expr.js';

/** The ranking functions, which bind to a rank node. */
export const RANK_FUNCTIONS: ReadonlySet<string> = new Set<RankType>(['ROW_NUMBER', 'RANK', 'DENSE_RANK']);

/** The rank node for ranking call `call` over `window`, and the call's value over it; `others` are further ranking calls, refused. */
export function bindRank(input: LogicalNode, call: FunctionCall, over: WindowSpec, others: readonly FunctionCall[], ctx: ExprBindContext): { plan: LogicalNode; value: ScalarExpr } {
  const other = others[0];
  if (other !== undefined) throw new WeirError('UNSUPPORTED', 'only one ROW_NUMBER(), RANK() or DENSE_RANK() per query is supported', { span: other.span });
  const name = callName(call) as RankType;
  if (call.args.length > 0) throw new WeirError('INVALID_ARGUMENT', `${name}() takes no arguments`, { span: call.span });
  if (over.frame !== undefined) throw new WeirError('UNSUPPORTED', `${name}() takes OVER (PARTITION BY ... ORDER BY ...) without a frame`, { span: over.frame.span });
  if (over.orderBy.length === 0) throw new WeirError('INVALID_ARGUMENT', `${name}() needs ORDER BY in its OVER clause`, { span: over.span });
  const column = (expr: Expr): number => {
    const bound = bindExpr(expr, ctx);
    if (bound.kind !== 'input-ref') throw new WeirError('UNSUPPORTED', `PARTITION BY and ORDER BY of ${name}() must name columns`, { span: expr.span });
    return bound.index;
  };
  const partitionKeys = over.partitionBy.map(column);
  const orderKeys = over.orderBy.map((o) => ({ index: column(o.expr), descending: o.descending }));
  const rankIndex = input.schema.length;
  const schema = [...input.schema, { name: `$${name.toLowerCase()}`, type: SqlTypes.bigint(false) }];
  const plan: LogicalNode = { kind: 'rank', rankType: name, input, partitionKeys, orderKeys, limit: undefined, schema };
  return { plan, value: Exprs.inputRef(rankIndex, SqlTypes.bigint(false)) };
}

/** The calls with an OVER clause in the expressions. */
export function windowCalls(exprs: readonly Expr[]): FunctionCall[] {
  const calls: FunctionCall[] = [];
  for (const expr of exprs) visitExpr(expr, (e) => e.kind === 'call' && e.over !== undefined && calls.push(e));
  return calls;
}
