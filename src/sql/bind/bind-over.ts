/**
 * Binds the calls with an OVER clause in a select list, choosing one of three forms:
 * - one ROW_NUMBER, RANK or DENSE_RANK alone becomes a rank node (see bind-rank.ts), which runs as
 *   Top-N when a filter bounds the number, and as the general OVER operator otherwise;
 * - aggregate calls only, each over a window ordered ascending by one TIMESTAMP column with a frame
 *   that ends at the current row (Flink's OVER aggregates), become OVER aggregate nodes: one per
 *   distinct window (PARTITION BY, ORDER BY and frame), chained so that each reads the one before
 *   and appends one column per call — the way Flink's batch planner splits window groups;
 * - anything else (LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTILE, PERCENT_RANK, CUME_DIST, ranks beside
 *   other calls, windows ordered by other columns or expressions, frames that reach past the
 *   current row) binds to the general OVER operator's nodes (bind-over-window.ts).
 * Named windows (`OVER w`, `WINDOW w AS (...)`) are resolved here.
 */
import { WeirError } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import type { OverFrame } from '../../common/over-frame.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { type AggregateCall, type LogicalNode, LogicalOverAggregate, LogicalProject, type OverCall, type OverLagCall } from '../../plan/logical/logical-node.js';
import type { FrameBound, FunctionCall, SelectQuery, WindowFrame, WindowSpec } from '../parse/ast.js';
import { bindAggregateCall } from './bind-aggregate-call.js';
import { bindExpr, callName, type ExprBindContext } from './bind-expr.js';
import { bindOverWindow, bindWindowFunction } from './bind-over-window.js';
import { bindRank, RANK_FUNCTIONS } from './bind-rank.js';
import { sameExpr } from './bind-select.js';
import type { BinderContext } from './binder-context.js';

/** The plan with the windowed calls computed, and each call's value as an expression over it. */
export interface BoundWindowCalls {
  readonly plan: LogicalNode;
  readonly values: ReadonlyMap<FunctionCall, ScalarExpr>;
}

/** Binds `calls` (the OVER calls of one select list, in order) over `input`, whose columns the scope of `ctx` describes. */
export function bindWindowCalls(input: LogicalNode, calls: readonly FunctionCall[], windows: SelectQuery['windows'], ctx: ExprBindContext, binder: BinderContext): BoundWindowCalls {
  const resolved = calls.map((call) => ({ call, window: windowOf(call, windows) }));
  // One ranking call alone: a rank node, which runs as Top-N when a filter bounds the number.
  if (resolved.length === 1 && RANK_FUNCTIONS.has(callName(resolved[0]!.call))) {
    const rank = bindRank(input, resolved[0]!.call, resolved[0]!.window, ctx);
    return { plan: rank.plan, values: new Map([[resolved[0]!.call, rank.value]]) };
  }
  // Aggregates and LAG over windows ordered by one time attribute: Flink's OVER aggregates.
  const flinkOver = (call: FunctionCall): boolean => callName(call) === 'LAG' || binder.functions.lookup(callName(call))?.kind === 'aggregate';
  if (resolved.every(({ call, window }) => flinkOver(call) && isTimeOrdered(window, ctx))) return bindOverAggregate(input, resolved, ctx, binder);
  return bindOverWindow(input, resolved, ctx, binder);
}

/**
 * Whether a window suits Flink's OVER aggregate: ordered ascending by one TIMESTAMP column, with a
 * frame (if any) that ends at the current row and starts at or before it. A RANGE frame with an
 * offset runs only there, whatever the ORDER BY, so that its errors say what it needs.
 */
function isTimeOrdered(spec: WindowSpec, ctx: ExprBindContext): boolean {
  const frame = spec.frame;
  if (hasRangeOffset(spec)) return true;
  if (frame !== undefined && (frame.end.kind !== 'current-row' || frame.start.kind === 'following' || frame.start.kind === 'unbounded-following')) return false;
  const [order, extra] = spec.orderBy;
  if (order === undefined || extra !== undefined || order.descending) return false;
  const time = bindExpr(order.expr, ctx);
  return time.kind === 'input-ref' && (time.type.kind === 'TIMESTAMP' || time.type.kind === 'TIMESTAMP_LTZ');
}

/** Whether a window's frame is RANGE starting at an offset (n PRECEDING or FOLLOWING). */
function hasRangeOffset(spec: WindowSpec): boolean {
  const frame = spec.frame;
  return frame !== undefined && frame.unit === 'RANGE' && (frame.start.kind === 'preceding' || frame.start.kind === 'following');
}

function bindOverAggregate(input: LogicalNode, resolved: readonly { call: FunctionCall; window: WindowSpec }[], ctx: ExprBindContext, binder: BinderContext): BoundWindowCalls {
  const preExprs: ScalarExpr[] = input.schema.map((f, i) => Exprs.inputRef(i, f.type));
  const indexOfPre = (expr: ScalarExpr): number => {
    if (expr.kind === 'input-ref') return expr.index;
    const existing = preExprs.findIndex((e, i) => i >= input.schema.length && sameExpr(e, expr));
    if (existing >= 0) return existing;
    preExprs.push(expr);
    return preExprs.length - 1;
  };
  // The distinct windows in order of first use, and the calls over each.
  const windows: { window: BoundWindow; fingerprint: string; calls: number[] }[] = [];
  resolved.forEach(({ window: spec }, i) => {
    const window = bindWindow(spec, ctx, indexOfPre);
    const fingerprint = JSON.stringify(window);
    const same = windows.find((w) => w.fingerprint === fingerprint);
    if (same === undefined) windows.push({ window, fingerprint, calls: [i] });
    else same.calls.push(i);
  });
  const bound = resolved.map(({ call, window }): Omit<AggregateCall, 'name'> | Omit<OverLagCall, 'name'> => {
    if (callName(call) === 'LAG') {
      const lag = bindWindowFunction(call, window, ctx, binder, indexOfPre);
      if (lag.kind !== 'offset') throw new WeirError('INTERNAL_ERROR', 'LAG bound to another kind of window function');
      return { function: 'LAG', lag: true, arg: lag.arg, offset: lag.offset, default: lag.default, type: lag.type };
    }
    return bindAggregateCall(call, ctx.scope, binder, indexOfPre);
  });
  const preSchema: Field[] = preExprs.map((e, i) => ({ name: i < input.schema.length ? input.schema[i]!.name : `$f${i}`, type: e.type }));
  let plan: LogicalNode = preExprs.length === input.schema.length ? input : LogicalProject.create({ input, exprs: preExprs, names: preSchema.map((f) => f.name) });
  // One OVER aggregate per window, each reading the one before (whose columns keep their places).
  const column = new Map<number, number>();
  windows.forEach(({ window, calls: callIndexes }, w) => {
    const calls: OverCall[] = callIndexes.map((c, j) => ({ ...bound[c]!, name: `w${w}$o${j}` }) as OverCall);
    callIndexes.forEach((c, j) => column.set(c, plan.schema.length + j));
    plan = LogicalOverAggregate.create({ input: plan, ...window, calls });
  });
  const values = new Map(resolved.map(({ call }, i) => [call, Exprs.inputRef(column.get(i)!, bound[i]!.type)]));
  return { plan, values };
}

/** The window of a call: its own OVER (...), or the named window it refers to. */
export function windowOf(call: FunctionCall, windows: SelectQuery['windows']): WindowSpec {
  const over = call.over!;
  if (over.ref === undefined) return over;
  const named = windows.find((w) => w.name.name.toLowerCase() === over.ref!.name.toLowerCase());
  if (named === undefined) {
    throw new WeirError('INVALID_ARGUMENT', `window '${over.ref.name}' is not defined`, { span: over.ref.span, hint: 'define it in the WINDOW clause: WINDOW w AS (PARTITION BY ... ORDER BY ...)' });
  }
  return named.spec;
}

/** What an OVER aggregate's window binds to; two calls share an OVER aggregate when these are equal. */
interface BoundWindow {
  readonly partitionKeys: number[];
  readonly timeIndex: number;
  readonly nullsLast: boolean;
  readonly frame: OverFrame;
}

/**
 * The partition keys, time column, null order and frame of an OVER aggregate's window. Partition
 * keys may be expressions, computed through `indexOfPre` in the projection below. As in Flink,
 * the window is ordered ascending by exactly one time attribute (which EXPLAIN and the changelog
 * inference check), and its frame ends at the current row.
 */
function bindWindow(spec: WindowSpec, ctx: ExprBindContext, indexOfPre: (expr: ScalarExpr) => number): BoundWindow {
  const partitionKeys = spec.partitionBy.map((e) => indexOfPre(bindExpr(e, ctx)));
  const [order, extra] = spec.orderBy;
  if (order === undefined) throw new WeirError('INVALID_ARGUMENT', 'an OVER aggregate needs ORDER BY a time attribute in its window', { span: spec.span, hint: "e.g. OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)" });
  if (extra !== undefined) throw new WeirError('UNSUPPORTED', 'an OVER window must be ordered by exactly one time attribute', { span: extra.span, hint: 'Flink has the same restriction; to rank by other columns, use ROW_NUMBER() with a Top-N filter' });
  if (order.descending) throw new WeirError('UNSUPPORTED', 'an OVER window must be ordered ascending by its time attribute', { span: order.span, hint: 'Flink has the same restriction: rows arrive in time order' });
  const time = bindExpr(order.expr, ctx);
  if (time.kind !== 'input-ref') throw new WeirError('UNSUPPORTED', 'ORDER BY of an OVER window must name a column', { span: order.expr.span, hint: 'order by a time attribute: a rowtime column (one with a WATERMARK) or a PROCTIME() column' });
  const timeIndex = time.index;
  const type = ctx.scope.columns[timeIndex]!.type;
  if (type.kind !== 'TIMESTAMP' && type.kind !== 'TIMESTAMP_LTZ') {
    // Only a RANGE frame with an offset comes here ordered by another type (see isTimeOrdered).
    if (hasRangeOffset(spec)) {
      throw new WeirError('UNSUPPORTED', `a RANGE frame with an offset needs a window ordered by one time attribute, not by ${type.kind} column '${ctx.scope.columns[timeIndex]!.name}'`, {
        span: order.expr.span,
        hint: 'count rows instead (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), or order by a rowtime column (one with a WATERMARK) or a PROCTIME() column; Flink has the same restriction',
      });
    }
    throw new WeirError('UNSUPPORTED', `an OVER window must be ordered by a time attribute, not by ${type.kind} column '${ctx.scope.columns[timeIndex]!.name}'`, { span: order.expr.span, hint: 'order by a rowtime column (one with a WATERMARK) or a PROCTIME() column' });
  }
  // NULLS LAST matters only where NULL times can be: a NOT NULL time gets the default.
  const nullsLast = order.nullsFirst === false && type.nullable;
  return { partitionKeys, timeIndex, nullsLast, frame: spec.frame === undefined ? { unit: 'RANGE', preceding: null } : bindFrame(spec.frame, ctx) };
}

function bindFrame(frame: WindowFrame, ctx: ExprBindContext): OverFrame {
  if (frame.end.kind !== 'current-row') throw new WeirError('UNSUPPORTED', 'an OVER window frame must end at CURRENT ROW', { span: frame.span });
  return { unit: frame.unit, preceding: precedingOf(frame.start, frame, ctx) };
}

function precedingOf(start: FrameBound, frame: WindowFrame, ctx: ExprBindContext): number | null {
  switch (start.kind) {
    case 'unbounded-preceding':
      return null;
    case 'current-row':
      return 0;
    case 'preceding': {
      const bound = bindExpr(start.offset, ctx);
      const value = bound.kind === 'literal' ? bound.value : undefined;
      if (frame.unit === 'ROWS') {
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || bound.type.kind === 'INTERVAL_DAY_TIME') {
          throw new WeirError('INVALID_ARGUMENT', 'ROWS frames take a non-negative integer: ROWS BETWEEN 10 PRECEDING AND CURRENT ROW', { span: start.offset.span });
        }
        return value;
      }
      if (bound.type.kind !== 'INTERVAL_DAY_TIME' || typeof value !== 'number' || value < 0) {
        throw new WeirError('INVALID_ARGUMENT', "RANGE frames take a non-negative interval: RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW", { span: start.offset.span });
      }
      return value;
    }
    default:
      throw new WeirError('UNSUPPORTED', 'an OVER window frame must start at UNBOUNDED PRECEDING, n PRECEDING or CURRENT ROW', { span: frame.span });
  }
}
