/**
 * Binds `ROW_NUMBER() | RANK() | DENSE_RANK() OVER (PARTITION BY ... ORDER BY ...)` in a select
 * list (Flink's Top-N and deduplication pattern): a rank node over the FROM relation adds the
 * row's number as a column, which the select item then reads. Partition and order keys are
 * expressions; those that are not plain columns are computed in a projection below the rank (as
 * Flink's planner does), appended after the FROM columns. ORDER BY keeps NULLS FIRST / LAST
 * (Flink's default otherwise: first ascending, last descending). Used for a select list whose
 * only OVER call is this one; ranks beside other OVER calls bind in bind-over-window.ts.
 */
import { WeirError } from '../../common/errors.js';
import { orderKey } from '../../common/order-key.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { type LogicalNode, type RankType, LogicalProject, LogicalRank } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall, WindowSpec } from '../parse/ast.js';
import { sameExpr } from './bind-select.js';
import { bindExpr, callName, visitExpr, type ExprBindContext } from './bind-expr.js';

/** The ranking functions, which bind to a rank node. */
export const RANK_FUNCTIONS: ReadonlySet<string> = new Set<RankType>(['ROW_NUMBER', 'RANK', 'DENSE_RANK']);

/** The rank node for ranking call `call` over `window`, and the call's value over it. */
export function bindRank(input: LogicalNode, call: FunctionCall, over: WindowSpec, ctx: ExprBindContext): { plan: LogicalNode; value: ScalarExpr } {
  const name = callName(call) as RankType;
  if (call.args.length > 0) throw new WeirError('INVALID_ARGUMENT', `${name}() takes no arguments`, { span: call.span });
  if (over.frame !== undefined) throw new WeirError('UNSUPPORTED', `${name}() takes OVER (PARTITION BY ... ORDER BY ...) without a frame`, { span: over.frame.span });
  if (over.orderBy.length === 0) throw new WeirError('INVALID_ARGUMENT', `${name}() needs ORDER BY in its OVER clause`, { span: over.span });
  const exprs: ScalarExpr[] = input.schema.map((f, i) => Exprs.inputRef(i, f.type));
  const column = (expr: Expr): number => {
    const bound = bindExpr(expr, ctx);
    if (bound.kind === 'input-ref') return bound.index;
    const existing = exprs.findIndex((e, i) => i >= input.schema.length && sameExpr(e, bound));
    if (existing >= 0) return existing;
    exprs.push(bound);
    return exprs.length - 1;
  };
  const partitionKeys = over.partitionBy.map(column);
  const orderKeys = over.orderBy.map((o) => orderKey(column(o.expr), o.descending, o.nullsFirst));
  const preSchema: Field[] = exprs.map((e, i) => (i < input.schema.length ? input.schema[i]! : { name: `$f${i}`, type: e.type }));
  const pre: LogicalNode = exprs.length === input.schema.length ? input : LogicalProject.create({ input, exprs, names: preSchema.map((f) => f.name) });
  const rankIndex = preSchema.length;
  const plan: LogicalNode = LogicalRank.create({ rankType: name, input: pre, partitionKeys, orderKeys, range: undefined, outputNumber: true, numberName: `$${name.toLowerCase()}` });
  return { plan, value: Exprs.inputRef(rankIndex, SqlTypes.bigint(false)) };
}

/** The calls with an OVER clause in the expressions. */
export function windowCalls(exprs: readonly Expr[]): FunctionCall[] {
  const calls: FunctionCall[] = [];
  for (const expr of exprs) visitExpr(expr, (e) => e.kind === 'call' && e.over !== undefined && calls.push(e));
  return calls;
}
