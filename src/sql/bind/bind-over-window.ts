/**
 * Binds OVER calls that the general OVER operator computes (see LogicalOverWindow): LAG, LEAD,
 * FIRST_VALUE, LAST_VALUE, NTILE, ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, and
 * aggregates, over windows ordered by any expressions. Calls are grouped by window (PARTITION BY
 * and ORDER BY; frames may differ per call): one node per window, chained so that each reads the
 * one before and appends one column per call. Partition and order expressions that are not plain
 * columns, and LAG/LEAD defaults, are computed in a projection below (appended after the FROM
 * columns). Semantics are PostgreSQL's: the default frame is RANGE BETWEEN UNBOUNDED PRECEDING AND
 * CURRENT ROW (the whole partition without ORDER BY), ranking functions and LAG/LEAD ignore the
 * frame.
 */
import { WeirError } from '../../common/errors.js';
import { orderKey, type OrderKey } from '../../common/order-key.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import { DEFAULT_WINDOW_FRAME, WINDOW_FUNCTIONS, windowAggregate, type RankingFunctionName, type WindowFrame, type WindowFunction } from '../../common/window-function.js';
import { evaluateConstantExpr, isConstantExpr } from '../../expr/constant-expr.js';
import type { FunctionRegistry } from '../../expr/function-registry.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { leastRestrictive } from '../../expr/type-coercion.js';
import { LogicalOverWindow, LogicalProject, type AggregateCall, type LogicalNode, type WindowCall } from '../../plan/logical/logical-node.js';
import type { FrameBound, FunctionCall, WindowFrame as AstWindowFrame, WindowSpec } from '../parse/ast.js';
import { bindAggregateCall } from './bind-aggregate-call.js';
import { bindExpr, callName, castTo, type ExprBindContext } from './bind-expr.js';
import { sameExpr } from './bind-select.js';
import type { BinderContext } from './binder-context.js';

/** The plan with the windowed calls computed, and each call's value as an expression over it. */
export interface BoundOverWindow {
  readonly plan: LogicalNode;
  readonly values: ReadonlyMap<FunctionCall, ScalarExpr>;
}

/** The names accepted with OVER besides aggregate functions, for messages. */
const ACCEPTED = [...WINDOW_FUNCTIONS.keys()].join(', ');

/** Binds `resolved` (OVER calls with their windows) over `input`, whose columns the scope of `ctx` describes, into chained over-window nodes. */
export function bindOverWindow(input: LogicalNode, resolved: readonly { call: FunctionCall; window: WindowSpec }[], ctx: ExprBindContext, binder: BinderContext): BoundOverWindow {
  const preExprs: ScalarExpr[] = input.schema.map((f, i) => Exprs.inputRef(i, f.type));
  const indexOfPre = (expr: ScalarExpr): number => {
    if (expr.kind === 'input-ref') return expr.index;
    const existing = preExprs.findIndex((e, i) => i >= input.schema.length && sameExpr(e, expr));
    if (existing >= 0) return existing;
    preExprs.push(expr);
    return preExprs.length - 1;
  };
  const windows: { partitionKeys: number[]; orderKeys: OrderKey[]; fingerprint: string; calls: number[] }[] = [];
  const bound = resolved.map(({ call, window: spec }, i) => {
    const partitionKeys = spec.partitionBy.map((e) => indexOfPre(bindExpr(e, ctx)));
    const orderKeys = spec.orderBy.map((o) => orderKey(indexOfPre(bindExpr(o.expr, ctx)), o.descending, o.nullsFirst));
    const fingerprint = JSON.stringify([partitionKeys, orderKeys]);
    const same = windows.find((w) => w.fingerprint === fingerprint);
    if (same === undefined) windows.push({ partitionKeys, orderKeys, fingerprint, calls: [i] });
    else same.calls.push(i);
    return bindWindowFunction(call, spec, ctx, binder, indexOfPre);
  });
  const preSchema: Field[] = preExprs.map((e, i) => ({ name: i < input.schema.length ? input.schema[i]!.name : `$f${i}`, type: e.type }));
  let plan: LogicalNode = preExprs.length === input.schema.length ? input : LogicalProject.create({ input, exprs: preExprs, names: preSchema.map((f) => f.name) });
  const column = new Map<number, number>();
  windows.forEach(({ partitionKeys, orderKeys, calls: callIndexes }, w) => {
    const calls: WindowCall[] = callIndexes.map((c, j) => ({ ...bound[c]!, name: `w${w}$o${j}` }) as WindowCall);
    callIndexes.forEach((c, j) => column.set(c, plan.schema.length + j));
    plan = LogicalOverWindow.create({ input: plan, partitionKeys, orderKeys, calls });
  });
  const values = new Map(resolved.map(({ call }, i) => [call, Exprs.inputRef(column.get(i)!, bound[i]!.type)]));
  return { plan, values };
}

/** A call bound to what it computes and its type (the name is given per node); also binds LAG for the OVER aggregate. */
export function bindWindowFunction(call: FunctionCall, spec: WindowSpec, ctx: ExprBindContext, binder: BinderContext, indexOfPre: (expr: ScalarExpr) => number): WindowFunction<AggregateCall> & { readonly type: SqlType } {
  const name = callName(call);
  const kind = WINDOW_FUNCTIONS.get(name);
  if (call.distinct) throw new WeirError('UNSUPPORTED', `DISTINCT is not supported in ${name}(...) OVER`, { span: call.span, hint: 'aggregate the distinct values in a subquery (SELECT DISTINCT ...), or use GROUP BY' });
  if (call.filter !== undefined && kind !== undefined) {
    throw new WeirError('INVALID_ARGUMENT', `FILTER is only allowed on aggregate functions, not ${name}`, { span: call.filter.span, hint: `filter the value instead: ${name}(CASE WHEN ... THEN v END)` });
  }
  const argument = (i: number): ScalarExpr => {
    const arg = call.args[i]!;
    if (arg.kind === 'star' || arg.kind === 'table-arg') throw new WeirError('INVALID_ARGUMENT', `${name} takes a value here`, { span: arg.span });
    return bindExpr(arg, ctx);
  };
  const arity = (min: number, max: number, form: string): void => {
    if (call.args.length < min || call.args.length > max) throw new WeirError('INVALID_ARGUMENT', `${name} takes ${form}`, { span: call.span });
  };
  switch (kind) {
    case 'ranking': {
      arity(0, 0, 'no arguments: ' + name + '()');
      const fn = name as RankingFunctionName;
      const type = fn === 'PERCENT_RANK' || fn === 'CUME_DIST' ? SqlTypes.double(false) : SqlTypes.bigint(false);
      return { kind: 'ranking', function: fn, type };
    }
    case 'ntile': {
      arity(1, 1, 'one argument, the number of buckets: NTILE(4)');
      return { kind: 'ntile', buckets: positiveInteger(argument(0), 'NTILE takes a positive integer constant, the number of buckets: NTILE(4)', call.args[0]!.span, binder.functions), type: SqlTypes.bigint(false) };
    }
    case 'offset': {
      arity(1, 3, `a value, an optional offset and an optional default: ${name}(v, 1, 0)`);
      const value = argument(0);
      const offset = call.args.length > 1 ? nonNegativeInteger(argument(1), `the offset of ${name} is a non-negative integer constant: ${name}(v, 2)`, call.args[1]!.span, binder.functions) : 1;
      const fallback = call.args.length > 2 ? argument(2) : undefined;
      let type = withNullable(withoutTimeAttribute(value.type), true);
      if (fallback !== undefined && !(fallback.kind === 'literal' && fallback.value === null)) {
        const common = leastRestrictive([type, withoutTimeAttribute(fallback.type)]);
        if (common === undefined) {
          throw new WeirError('INVALID_ARGUMENT', `the default of ${name} must have the value's type, not ${fallback.type.kind}`, { span: call.args[2]!.span, hint: `cast one to the other: ${name}(CAST(v AS STRING), 1, 'none')` });
        }
        type = withNullable(common, true);
      }
      const arg = indexOfPre(castTo(value, type));
      const defaultColumn = fallback === undefined || (fallback.kind === 'literal' && fallback.value === null) ? null : indexOfPre(castTo(fallback, type));
      return { kind: 'offset', function: name as 'LAG' | 'LEAD', arg, offset, default: defaultColumn, type };
    }
    case 'frame-value': {
      arity(1, 1, `one argument: ${name}(v)`);
      const value = argument(0);
      const type = withNullable(withoutTimeAttribute(value.type), true);
      return { kind: 'frame-value', function: name as 'FIRST_VALUE' | 'LAST_VALUE', arg: indexOfPre(value), frame: frameOf(spec, ctx), type };
    }
    case undefined: {
      const definition = binder.functions.lookup(name);
      if (definition === undefined || definition.kind !== 'aggregate') {
        throw new WeirError('UNSUPPORTED', `${name}(...) OVER is not supported; aggregate functions and ${ACCEPTED} are`, { span: call.span });
      }
      const aggregate = { ...bindAggregateCall(call, ctx.scope, binder, indexOfPre), name: '' };
      return { ...windowAggregate(aggregate, frameOf(spec, ctx)), type: aggregate.type };
    }
    default: {
      const unknown: never = kind;
      throw new Error(`unknown window function kind ${String(unknown)}`);
    }
  }
}

function positiveInteger(expr: ScalarExpr, message: string, span: FunctionCall['span'], functions: FunctionRegistry): number {
  const value = nonNegativeInteger(expr, message, span, functions);
  if (value === 0) throw new WeirError('INVALID_ARGUMENT', message, { span });
  return value;
}

/** The value of `expr`, a literal or a constant expression (`0 + 1`, evaluated as Flink reduces it), as a non-negative integer; otherwise `message`. */
function nonNegativeInteger(expr: ScalarExpr, message: string, span: FunctionCall['span'], functions: FunctionRegistry): number {
  let value: unknown;
  if (expr.kind === 'literal') value = expr.value;
  else if (isConstantExpr(expr, functions)) {
    try {
      value = evaluateConstantExpr(expr, functions);
    } catch (error) {
      throw new WeirError('INVALID_ARGUMENT', message, { span, cause: error });
    }
  }
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0 || expr.type.kind === 'INTERVAL_DAY_TIME') throw new WeirError('INVALID_ARGUMENT', message, { span });
  return number;
}

/** The frame of a window (SQL's default when it has none). RANGE frames reach peers only: an offset needs the time-ordered OVER aggregate. */
function frameOf(spec: WindowSpec, ctx: ExprBindContext): WindowFrame {
  const frame = spec.frame;
  if (frame === undefined) return DEFAULT_WINDOW_FRAME;
  if (frame.start.kind === 'unbounded-following') throw new WeirError('INVALID_ARGUMENT', 'a window frame cannot start at UNBOUNDED FOLLOWING', { span: frame.span });
  if (frame.end.kind === 'unbounded-preceding') throw new WeirError('INVALID_ARGUMENT', 'a window frame cannot end at UNBOUNDED PRECEDING', { span: frame.span });
  const start = boundOf(frame.start, frame, ctx);
  const end = boundOf(frame.end, frame, ctx);
  return { unit: frame.unit, start, end };
}

function boundOf(bound: FrameBound, frame: AstWindowFrame, ctx: ExprBindContext): number | null {
  switch (bound.kind) {
    case 'unbounded-preceding':
    case 'unbounded-following':
      return null;
    case 'current-row':
      return 0;
    case 'preceding':
    case 'following': {
      if (frame.unit === 'RANGE') {
        throw new WeirError('UNSUPPORTED', 'a RANGE frame with an offset needs a window ordered by one time attribute, in a SELECT whose OVER calls are all aggregates or LAG', {
          span: bound.offset.span,
          hint: "count rows instead (ROWS BETWEEN 3 PRECEDING AND CURRENT ROW), or compute the RANGE aggregate over a time attribute in a subquery (SUM(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS s) and the other window functions over its result",
        });
      }
      const rows = nonNegativeInteger(bindExpr(bound.offset, ctx), 'ROWS frames take a non-negative integer constant: ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING', bound.offset.span, ctx.functions);
      return bound.kind === 'preceding' ? -rows : rows;
    }
    default: {
      const unknown: never = bound;
      throw new Error(`unknown frame bound ${JSON.stringify(unknown)}`);
    }
  }
}
