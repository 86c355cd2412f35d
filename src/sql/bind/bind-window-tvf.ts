/**
 * Binds the window table functions `TUMBLE(TABLE t, DESCRIPTOR(ts), size)`,
 * `HOP(TABLE t, DESCRIPTOR(ts), slide, size)`, `CUMULATE(TABLE t, DESCRIPTOR(ts), step, size)` and
 * `SESSION(TABLE t [PARTITION BY cols], DESCRIPTOR(ts), gap)`: the table's columns plus
 * `window_start`, `window_end` and `window_time` (a time attribute of the same kind as the
 * time column: TUMBLE, HOP and CUMULATE also run over processing time, a PROCTIME() column).
 *
 * TUMBLE, HOP and CUMULATE also take any TIMESTAMP or TIMESTAMP_LTZ column that is no time
 * attribute, as RisingWave does: the window columns are then plain functions of each row (no
 * watermark, window_time no time attribute), and a GROUP BY over them an ordinary updating
 * aggregation. A last, optional interval argument of TUMBLE, HOP and CUMULATE shifts the window
 * starts (Flink's `offset`): `TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '10' MINUTE)`
 * has windows from 00:10 to 01:10, 01:10 to 02:10, ...
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { formatType, SqlTypes, timeAttributeOf } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import { type LogicalNode, LogicalWindowTvf, windowTimeType } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall, TableArg } from '../parse/ast.js';
import { bindExpr, callName } from './bind-expr.js';
import type { BinderContext, BoundRelation } from './binder-context.js';
import { Scope } from './scope.js';

/** The interval arguments of each window function, in order. */
const WINDOW_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  TUMBLE: ['size'],
  HOP: ['slide', 'size'],
  CUMULATE: ['step', 'size'],
  SESSION: ['gap'],
};

/** The table functions this module binds. */
export const WINDOW_FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(WINDOW_PARAMETERS));

/** Binds a window TVF call over `input` (the relation named by its TABLE argument). */
export function bindWindowTvf(call: FunctionCall, ctx: BinderContext, bindTable: (arg: TableArg) => BoundRelation): BoundRelation {
  const name = callName(call);
  const parameters = WINDOW_PARAMETERS[name]!;
  const [tableArg, descriptor, ...intervals] = positionalArgs(call, name, parameters);
  const withOffset = name !== 'SESSION' && intervals.length === parameters.length + 1;
  if (tableArg?.kind !== 'table-arg' || descriptor === undefined || (intervals.length !== parameters.length && !withOffset)) {
    const partition = name === 'SESSION' ? ' [PARTITION BY columns]' : '';
    const offset = name === 'SESSION' ? '' : ' [, offset]';
    throw new WeirError('INVALID_ARGUMENT', `${name} takes ${name}(TABLE t${partition}, DESCRIPTOR(time_column), ${parameters.join(', ')}${offset})`, { span: call.span });
  }
  const partitionBy = tableArg.partitionBy ?? [];
  if (partitionBy.length > 0 && name !== 'SESSION') {
    throw new WeirError('UNSUPPORTED', `PARTITION BY is only allowed for SESSION windows`, { span: tableArg.span });
  }
  const input = bindTable(tableArg);
  const timeIndex = descriptorColumn(descriptor, input, name);
  const partitionKeys = partitionBy.map((e) => columnIndex(e, input, name, 'PARTITION BY'));
  const millis = intervals.slice(0, parameters.length).map((e) => intervalMillis(e as Expr, ctx, name));
  const offset = withOffset ? offsetMillis(intervals[parameters.length] as Expr, ctx, name) : 0;
  return windowTvf(input.plan, timeIndex, windowSpec(name, millis, call.span, offset), partitionKeys);
}

/** The window TVF node over `input`, whose column `timeIndex` is a time attribute, or for TUMBLE, HOP and CUMULATE any timestamp. */
export function windowTvf(input: LogicalNode, timeIndex: number, window: WindowSpec, partitionKeys: readonly number[]): BoundRelation {
  const schema: Field[] = [
    ...input.schema,
    { name: 'window_start', type: SqlTypes.timestamp(3, false) },
    { name: 'window_end', type: SqlTypes.timestamp(3, false) },
    // As Flink: over a TIMESTAMP_LTZ time the bounds are wall-clock TIMESTAMPs of the session zone and window_time an instant;
    // window_time keeps a TIMESTAMP(p > 3) column's precision (logical-node.ts, windowTimePrecision).
    { name: 'window_time', type: windowTimeType(input.schema[timeIndex]!.type, timeAttributeOf(input.schema[timeIndex]!.type) ?? 'rowtime') },
  ];
  const plan: LogicalNode = LogicalWindowTvf.create({ input, timeIndex, window, partitionKeys });
  return { plan, schema };
}

/**
 * Throws unless `field` is an event-time attribute, as the time column of window `name` must be.
 * `origin` names the join that materialized it, when one did (time-attribute-origin.ts).
 */
export function requireEventTime(field: Field, name: string, span: SourceSpan, origin?: string): void {
  const type = field.type;
  if ((type.kind !== 'TIMESTAMP' && type.kind !== 'TIMESTAMP_LTZ') || type.timeAttribute !== 'rowtime') {
    // As Flink's message: what the column is instead (a TIMESTAMP without WATERMARK, or one a regular join or subquery materialized).
    const declare = name === 'SESSION' ? 'declare WATERMARK FOR that column in the table (processing-time SESSION windows are not supported yet)' : 'declare WATERMARK FOR that column in the table, or use a PROCTIME() column for processing-time windows';
    const why = origin === undefined ? '' : ` (${origin} made it one: a regular join's output has no time attributes)`;
    throw new WeirError('INVALID_ARGUMENT', `the time column '${field.name}' of ${name} must be an event-time attribute, but is ${formatType(type)}${why}`, {
      span,
      hint: `${declare}; a time attribute read through a regular join or a subquery is a plain TIMESTAMP (as in Flink): window the rows before the join`,
    });
  }
}

/**
 * Throws unless `field` is a time attribute the window `name` can run over: an event-time
 * attribute, or for TUMBLE, HOP and CUMULATE also a processing-time one.
 */
export function requireTimeAttribute(field: Field, name: string, span: SourceSpan, origin?: string): void {
  if (name === 'SESSION' || timeAttributeOf(field.type) !== 'proctime') requireEventTime(field, name, span, origin);
}

function descriptorColumn(descriptor: Expr | TableArg, input: BoundRelation, name: string): number {
  const column = descriptor.kind === 'call' && callName(descriptor) === 'DESCRIPTOR' && descriptor.args.length === 1 ? descriptor.args[0] : undefined;
  if (column?.kind !== 'column-ref' || column.parts.length !== 1) {
    throw new WeirError('INVALID_ARGUMENT', `the second argument of ${name} must be DESCRIPTOR(time_column)`, { span: descriptor.span });
  }
  const index = columnIndex(column, input, name, 'DESCRIPTOR');
  const field = input.schema[index]!;
  // A plain timestamp makes windows that are functions of the row (not for SESSION, whose bounds depend on other rows).
  if (name !== 'SESSION' && (field.type.kind === 'TIMESTAMP' || field.type.kind === 'TIMESTAMP_LTZ') && timeAttributeOf(field.type) === undefined) return index;
  if (name !== 'SESSION' && field.type.kind !== 'TIMESTAMP' && field.type.kind !== 'TIMESTAMP_LTZ') {
    throw new WeirError('INVALID_ARGUMENT', `the time column '${field.name}' of ${name} must be a TIMESTAMP or TIMESTAMP_LTZ column, not ${field.type.kind}`, { span: column.span });
  }
  requireTimeAttribute(field, name, column.span);
  return index;
}

function columnIndex(column: Expr, input: BoundRelation, name: string, clause: string): number {
  if (column.kind !== 'column-ref' || column.parts.length !== 1) {
    throw new WeirError('INVALID_ARGUMENT', `${clause} of ${name} takes column names`, { span: column.span });
  }
  const wanted = column.parts[0]!.name;
  const index = input.schema.findIndex((f) => f.name === wanted || f.name.toLowerCase() === wanted.toLowerCase());
  if (index < 0) throw new WeirError('UNKNOWN_COLUMN', `column '${wanted}' does not exist in the table of ${name}`, { span: column.span });
  return index;
}

/**
 * The arguments of window function `name` in their positions: named arguments (Flink's `DATA =>`,
 * `TIMECOL =>`, `SIZE =>`, `SLIDE =>`, `STEP =>`, `GAP =>`, `OFFSET =>`, in any case) go to the
 * position of their name, after any positional ones. A name given twice, a name the function has
 * not, a positional argument after a named one and a gap before a named one are refused.
 */
function positionalArgs(call: FunctionCall, name: string, parameters: readonly string[]): readonly (Expr | TableArg)[] {
  const names = call.argumentNames;
  if (names === undefined) return call.args;
  const order = ['DATA', 'TIMECOL', ...parameters.map((p) => p.toUpperCase()), ...(name === 'SESSION' ? [] : ['OFFSET'])];
  const placed: (Expr | TableArg | undefined)[] = [];
  call.args.forEach((arg, i) => {
    const argName = names[i] ?? null;
    if (argName === null) {
      if (names.slice(0, i).some((n) => n !== null)) {
        throw new WeirError('INVALID_ARGUMENT', `a positional argument of ${name} cannot follow a named one`, { span: arg.span });
      }
      placed[i] = arg;
      return;
    }
    const position = order.indexOf(argName.name.toUpperCase());
    if (position < 0) {
      throw new WeirError('INVALID_ARGUMENT', `${name} has no argument named '${argName.name}' (its arguments are ${order.join(', ')})`, { span: argName.span });
    }
    if (placed[position] !== undefined) throw new WeirError('INVALID_ARGUMENT', `the argument ${order[position]} of ${name} is given twice`, { span: arg.span });
    placed[position] = arg;
  });
  const missing = order.findIndex((_, i) => placed[i] === undefined && placed.slice(i + 1).some((a) => a !== undefined));
  if (missing >= 0) throw new WeirError('INVALID_ARGUMENT', `${name} needs its argument ${order[missing]}`, { span: call.span });
  return placed as (Expr | TableArg)[];
}

/** The value of a positive day-time interval literal argument of window `name`, in milliseconds. */
export function intervalMillis(expr: Expr, ctx: Pick<BinderContext, 'functions'>, name: string): number {
  const bound = bindExpr(expr, { scope: new Scope([]), functions: ctx.functions, clause: 'VALUES' });
  if (bound.kind !== 'literal' || bound.type.kind !== 'INTERVAL_DAY_TIME' || typeof bound.value !== 'number' || bound.value <= 0) {
    throw new WeirError('INVALID_ARGUMENT', `the sizes of ${name} must be positive intervals such as INTERVAL '10' SECOND`, { span: expr.span });
  }
  return bound.value;
}

/** The value of the offset argument of window `name`: a day-time interval literal of any sign, in milliseconds. */
function offsetMillis(expr: Expr, ctx: Pick<BinderContext, 'functions'>, name: string): number {
  const bound = bindExpr(expr, { scope: new Scope([]), functions: ctx.functions, clause: 'VALUES' });
  if (bound.kind !== 'literal' || bound.type.kind !== 'INTERVAL_DAY_TIME' || typeof bound.value !== 'number') {
    throw new WeirError('INVALID_ARGUMENT', `the offset of ${name} must be an interval such as INTERVAL '10' MINUTE`, { span: expr.span });
  }
  return bound.value;
}

/**
 * The window of function `name` (a key of {@link WINDOW_FUNCTIONS}) from its interval arguments,
 * with window starts shifted by `offset` milliseconds (kept modulo the period the starts repeat
 * with: the size, or a HOP's slide; absent when that is 0).
 */
export function windowSpec(name: string, millis: readonly number[], span: SourceSpan, offset = 0): WindowSpec {
  const [first, second] = millis as [number, number | undefined];
  const shifted = (period: number): { offset?: number } => {
    const normal = ((offset % period) + period) % period;
    return normal === 0 ? {} : { offset: normal };
  };
  if (name === 'TUMBLE') return { kind: 'TUMBLE', size: first, ...shifted(first) };
  if (name === 'SESSION') return { kind: 'SESSION', gap: first };
  if (second! % first !== 0) {
    throw new WeirError('INVALID_ARGUMENT', `the size of a ${name} window must be a multiple of its ${name === 'HOP' ? 'slide' : 'step'}`, { span });
  }
  return name === 'HOP' ? { kind: 'HOP', slide: first, size: second!, ...shifted(first) } : { kind: 'CUMULATE', step: first, size: second!, ...shifted(second!) };
}

/** The names of a window's interval arguments. */
export function windowParameters(name: string): readonly string[] | undefined {
  return WINDOW_PARAMETERS[name];
}
