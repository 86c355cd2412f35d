/**
 * ORDER BY / LIMIT / OFFSET / FETCH of a streaming query, as Flink plans them (its SortLimit and
 * Limit): `ORDER BY ... LIMIT n OFFSET m` (or `OFFSET m ROWS FETCH FIRST n ROWS ONLY`) keeps rows
 * m+1 .. m+n in that order up to date — a Top-N over the whole result, a rank whose range is
 * m+1 .. m+n and whose number is not output, updated with retractions as better rows arrive or
 * kept ones leave — and `LIMIT n [OFFSET m]` alone keeps rows m+1 .. m+n in arrival order.
 *
 * Refused, as in Flink, because a stream's order is never final: ORDER BY without LIMIT, and
 * OFFSET without LIMIT, with or without ORDER BY (Flink plans both and then refuses them: its
 * StreamExecLimit and StreamExecSortLimit throw "FETCH is missed, which on streaming table is not
 * supported currently." when there is no fetch).
 *
 * An ORDER BY item is a 1-based position, an output column (by name or alias), an expression over
 * output columns, or — in a SELECT without GROUP BY or DISTINCT — an expression over the FROM
 * columns (in a grouped SELECT with a LIMIT, an item that aggregates, calls GROUPING() or reads a grouping column
 * the select list drops arrives here as the position of a column the aggregation computed for it,
 * see bind-select.ts); expressions are computed in a
 * projection below the Top-N and dropped above it. NULLS
 * FIRST / LAST are kept; without them NULLs come first ascending and last descending (Flink's
 * default, see order-key.ts).
 */
import { WeirError } from '../../common/errors.js';
import { orderKey, type OrderKey } from '../../common/order-key.js';
import type { Field } from '../../common/schema.js';
import { Exprs, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { type LogicalNode, LogicalProject, LogicalRank } from '../../plan/logical/logical-node.js';
import type { Expr, OrderItem } from '../parse/ast.js';
import { bindExpr, visitExpr, type ExprBindContext } from './bind-expr.js';
import { rowCount } from './literal-values.js';
import type { BinderContext, BoundRelation } from './binder-context.js';
import { Scope } from './scope.js';

/** The ORDER BY, LIMIT and OFFSET clauses of a query. */
export interface OrderLimitClauses {
  readonly orderBy: readonly OrderItem[];
  readonly limit?: Expr;
  readonly offset?: Expr;
  /**
   * The output columns (by name) within each value of which the rows are ordered and limited (a
   * correlated subquery's correlation columns, see bind-subquery.ts): a Top-N partitioned by them.
   * Without ORDER BY, the rows are then ordered by all the other columns (so that which rows a
   * LIMIT keeps does not depend on arrival order).
   */
  readonly limitPartition?: readonly string[];
}

/**
 * How a SELECT without GROUP BY or DISTINCT computed its result: `exprs` over `input`, whose
 * columns `from` names. ORDER BY may then also read columns of `input` the result does not keep.
 */
export interface SelectProjection {
  readonly input: LogicalNode;
  readonly exprs: readonly ScalarExpr[];
  readonly from: ExprBindContext;
}

/** `result` ordered and limited by `clauses`; `result` itself when it has none. */
export function bindOrderLimit(result: BoundRelation, clauses: OrderLimitClauses, ctx: BinderContext, projection?: SelectProjection): BoundRelation {
  const { orderBy, limit, offset } = clauses;
  if (limit === undefined) {
    if (offset !== undefined) {
      throw new WeirError('UNSUPPORTED', 'OFFSET without LIMIT is not supported in streaming queries', {
        span: offset.span,
        hint: 'add LIMIT n (or FETCH FIRST n ROWS ONLY): rows m+1 to m+n are then kept up to date; Flink refuses it too (FETCH is missed)',
      });
    }
    if (orderBy.length === 0) return result;
    throw new WeirError('UNSUPPORTED', 'ORDER BY in a streaming query needs a LIMIT', {
      span: orderBy[0]!.span,
      hint: 'add LIMIT n: the first n rows in that order are then kept up to date',
    });
  }
  const count = rowCount(limit, 'LIMIT');
  const skip = offset === undefined ? 0 : rowCount(offset, 'OFFSET');
  const width = result.schema.length;
  const partitionKeys = (clauses.limitPartition ?? []).map((name) => {
    const index = result.schema.findIndex((f) => f.name === name);
    if (index < 0) throw new WeirError('INTERNAL_ERROR', `the LIMIT's partition column '${name}' is not an output column`, { span: limit.span });
    return index;
  });
  const output: ExprBindContext = { scope: Scope.of(result.schema, undefined), functions: ctx.functions, clause: 'ORDER BY' };
  // Columns computed for ORDER BY besides the result's: over the result's columns, or over
  // `projection.input`, named after the FROM column they read when that name is free.
  const hidden: ScalarExpr[] = [];
  const hiddenNames: string[] = [];
  const readsFrom = projection !== undefined && orderBy.some((item) => !readsOutput(item.expr, result.schema));
  const written: OrderKey[] = orderBy.map((item) => {
    const position = positionOf(item.expr, width);
    if (position !== undefined && partitionKeys.includes(position)) {
      // (The partition columns follow the select list's: the position is past its end.)
      const visible = Math.min(...partitionKeys);
      throw new WeirError('INVALID_ARGUMENT', `ORDER BY position ${position + 1} is not in the select list (1 to ${visible})`, { span: item.expr.span });
    }
    if (position !== undefined) return orderKey(position, item.descending, item.nullsFirst);
    const fromInput = projection !== undefined && !readsOutput(item.expr, result.schema);
    let bound = bindExpr(item.expr, fromInput ? projection.from : output);
    if (!fromInput && bound.kind === 'input-ref') return orderKey(bound.index, item.descending, item.nullsFirst);
    if (readsFrom && !fromInput) bound = remapInputs(bound, (ref) => projection!.exprs[ref.index]!);
    const name = fromInput && bound.kind === 'input-ref' ? projection.input.schema[bound.index]!.name : undefined;
    const free = name !== undefined && ![...result.schema.map((f) => f.name), ...hiddenNames].some((n) => n.toLowerCase() === name.toLowerCase());
    hiddenNames.push(free ? name : `$order${hidden.length}`);
    hidden.push(bound);
    return orderKey(width + hidden.length - 1, item.descending, item.nullsFirst);
  });
  // (A partitioned LIMIT without ORDER BY: by every column but the partition's, ascending.)
  const orderKeys = clauses.limitPartition === undefined || orderBy.length > 0 ? written : result.schema.flatMap((_, i) => (partitionKeys.includes(i) ? [] : [orderKey(i, false, undefined)]));
  let input = result.plan;
  if (hidden.length > 0) {
    const exprs = readsFrom ? [...projection!.exprs, ...hidden] : [...result.schema.map((f, i) => Exprs.inputRef(i, f.type)), ...hidden];
    const schema: Field[] = [...result.schema, ...hidden.map((e, i) => ({ name: hiddenNames[i]!, type: e.type }))];
    input = LogicalProject.create({ input: readsFrom ? projection!.input : result.plan, exprs, names: schema.map((f) => f.name) });
  }
  const rank: LogicalNode = LogicalRank.create({
    rankType: 'ROW_NUMBER',
    input,
    partitionKeys,
    orderKeys,
    range: { start: skip + 1, end: skip + count },
    outputNumber: false,
  });
  if (hidden.length === 0) return { plan: rank, schema: result.schema };
  const exprs = result.schema.map((f, i) => Exprs.inputRef(i, f.type));
  return { plan: LogicalProject.create({ input: rank, exprs, names: result.schema.map((f) => f.name) }), schema: result.schema };
}

/** The column a 1-based position names (`ORDER BY 2`), or undefined when the item is not a number. */
function positionOf(expr: Expr, width: number): number | undefined {
  if (expr.kind !== 'literal' || expr.type !== 'number' || !/^\d+$/.test(expr.text)) return undefined;
  const position = Number(expr.text);
  if (position < 1 || position > width) {
    throw new WeirError('INVALID_ARGUMENT', `ORDER BY position ${position} is not in the select list (1 to ${width})`, { span: expr.span });
  }
  return position - 1;
}

/** Whether every column `expr` names is an output column (by unqualified name), so that it is bound over the result. */
export function readsOutput(expr: Expr, schema: readonly Pick<Field, 'name'>[]): boolean {
  let all = true;
  visitExpr(expr, (e) => {
    if (e.kind !== 'column-ref') return;
    const name = e.parts[0]!.name;
    if (e.parts.length !== 1 || !schema.some((f) => f.name === name || f.name.toLowerCase() === name.toLowerCase())) all = false;
  });
  return all;
}
