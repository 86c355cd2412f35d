/**
 * Binds Flink's legacy group windows: `GROUP BY k, TUMBLE(ts, size)`, `HOP(ts, slide, size)` or
 * `SESSION(ts, gap)`, whose bounds SELECT and HAVING read with `<W>_START`, `<W>_END` and
 * `<W>_ROWTIME` (`<W>_PROCTIME` over processing time) called with the same arguments. A group window becomes the window TVF of the same
 * kind over the FROM relation — a SESSION one partitioned by the other grouping columns, since
 * legacy sessions are per group — grouped by its window_start and window_end, so that both
 * syntaxes plan and run alike.
 */
import { WeirError } from '../../common/errors.js';
import { SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall, GroupingElement } from '../parse/ast.js';
import { bindExpr, callName, GROUP_WINDOW_PROPERTY, makeCall } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import { Scope } from './scope.js';
import { materializingJoin } from '../../plan/logical/time-attribute-origin.js';
import { intervalMillis, requireTimeAttribute, windowParameters, windowSpec, windowTvf } from './bind-window-tvf.js';

/** The window functions allowed in GROUP BY. */
const GROUP_WINDOW_FUNCTIONS = new Set(['TUMBLE', 'HOP', 'SESSION']);

/** A GROUP BY with a group window, bound. */
export interface GroupWindow {
  /** The window TVF over the FROM relation: its columns, then window_start, window_end and window_time. */
  readonly plan: LogicalNode;
  /** The FROM scope plus the window columns (named `w$start`, `w$end`, `w$rowtime`, which SQL text cannot reach unquoted). */
  readonly scope: Scope;
  /** The GROUP BY elements besides the window. */
  readonly groupBy: readonly GroupingElement[];
  /** What the window adds to the grouping keys: window_start and window_end, over `scope`. */
  readonly keys: readonly ScalarExpr[];
  readonly keyNames: readonly string[];
  /** Binds a `<W>_START | _END | _ROWTIME(...)` call against this window (an expression over `scope`). */
  property(call: FunctionCall): ScalarExpr;
}

/** The group window of a GROUP BY over `input` (read through `scope`), or undefined when it has none. */
export function bindGroupWindow(groupBy: readonly GroupingElement[], input: LogicalNode, scope: Scope, ctx: BinderContext): GroupWindow | undefined {
  const windows = groupBy.filter((e) => e.kind === 'group-expr' && e.expr.kind === 'call' && GROUP_WINDOW_FUNCTIONS.has(callName(e.expr)));
  if (windows.length === 0) return undefined;
  if (windows.length > 1) throw new WeirError('INVALID_ARGUMENT', 'a GROUP BY may have only one group window', { span: windows[1]!.span });
  const call = (windows[0] as Extract<GroupingElement, { kind: 'group-expr' }>).expr as FunctionCall;
  const name = callName(call);
  const { timeIndex, window } = bindWindowCall(call, input, scope, ctx);
  const others = groupBy.filter((e) => e !== windows[0]);
  const partitionKeys = name === 'SESSION' ? sessionPartition(others, scope, ctx) : [];
  const tvf = windowTvf(input, timeIndex, window, partitionKeys);
  const width = input.schema.length;
  const windowScope = new Scope([
    ...scope.columns,
    ...['w$start', 'w$end', 'w$rowtime'].map((column, i) => ({ qualifier: undefined, name: column, type: tvf.schema[width + i]!.type })),
  ]);
  const start = Exprs.inputRef(width, tvf.schema[width]!.type);
  const end = Exprs.inputRef(width + 1, tvf.schema[width + 1]!.type);
  return {
    plan: tvf.plan,
    scope: windowScope,
    groupBy: others,
    keys: [start, end],
    keyNames: ['window_start', 'window_end'],
    property(propertyCall) {
      const [, kind, property] = GROUP_WINDOW_PROPERTY.exec(callName(propertyCall))!;
      if (kind !== name) {
        throw new WeirError('INVALID_ARGUMENT', `${callName(propertyCall)} does not match the group window ${name}(...) of the GROUP BY`, { span: propertyCall.span });
      }
      const same = bindWindowCall(propertyCall, input, scope, ctx);
      if (same.timeIndex !== timeIndex || JSON.stringify(same.window) !== JSON.stringify(window)) {
        throw new WeirError('INVALID_ARGUMENT', `${callName(propertyCall)} must have the same arguments as ${name}(...) in the GROUP BY`, { span: propertyCall.span });
      }
      if (property === 'START') return start;
      if (property === 'END') return end;
      const attribute = property === 'ROWTIME' ? 'rowtime' : 'proctime';
      if ((tvf.schema[width + 2]!.type as { timeAttribute?: string }).timeAttribute !== attribute) {
        throw new WeirError('INVALID_ARGUMENT', `${callName(propertyCall)} needs a window over ${attribute === 'rowtime' ? 'an event-time' : 'a processing-time'} attribute`, { span: propertyCall.span });
      }
      const time = makeCall('-', [end, Exprs.literal(1, SqlTypes.intervalDayTime(false))], propertyCall.span, ctx);
      return { ...time, type: { ...time.type, timeAttribute: attribute } as SqlType };
    },
  };
}

/** The time column and window of `TUMBLE(ts, size)`, `HOP(ts, slide, size)`, `SESSION(ts, gap)` or one of their property functions. */
function bindWindowCall(call: FunctionCall, input: LogicalNode, scope: Scope, ctx: BinderContext): { timeIndex: number; window: WindowSpec } {
  const name = callName(call).replace(/_(START|END|ROWTIME|PROCTIME)$/, '');
  const parameters = windowParameters(name)!;
  const [time, ...intervals] = call.args;
  if (time === undefined || call.args.some((a) => a.kind === 'table-arg') || intervals.length !== parameters.length) {
    throw new WeirError('INVALID_ARGUMENT', `${callName(call)} takes (time_column, ${parameters.join(', ')})`, { span: call.span });
  }
  const bound = bindExpr(time as Expr, { scope, functions: ctx.functions, clause: 'GROUP BY' });
  if (bound.kind !== 'input-ref') throw new WeirError('INVALID_ARGUMENT', `the first argument of ${callName(call)} must be a time column`, { span: time.span });
  requireTimeAttribute({ name: scope.columns[bound.index]!.name, type: bound.type }, name, time.span, materializingJoin(input, bound.index));
  const millis = intervals.map((e) => intervalMillis(e as Expr, ctx, name));
  return { timeIndex: bound.index, window: windowSpec(name, millis, call.span) };
}

/** The columns a legacy SESSION window is partitioned by: the other grouping elements, which must be columns. */
function sessionPartition(others: readonly GroupingElement[], scope: Scope, ctx: BinderContext): number[] {
  return others.map((element) => {
    if (element.kind !== 'group-expr') throw new WeirError('UNSUPPORTED', `${element.type} is not supported yet`, { span: element.span });
    const bound = bindExpr(element.expr, { scope, functions: ctx.functions, clause: 'GROUP BY' });
    if (bound.kind !== 'input-ref') {
      throw new WeirError('UNSUPPORTED', 'besides SESSION(...), a GROUP BY may only list columns', {
        span: element.span,
        hint: 'compute the expression in a subquery and group by its column',
      });
    }
    return bound.index;
  });
}
