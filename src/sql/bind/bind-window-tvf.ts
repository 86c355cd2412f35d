/**
 * Binds the window table functions `TUMBLE(TABLE t, DESCRIPTOR(ts), size)`,
 * `HOP(TABLE t, DESCRIPTOR(ts), slide, size)`, `CUMULATE(TABLE t, DESCRIPTOR(ts), step, size)` and
 * `SESSION(TABLE t [PARTITION BY cols], DESCRIPTOR(ts), gap)`: the table's columns plus
 * `window_start`, `window_end` and `window_time` (a time attribute of the same kind as the
 * time column: TUMBLE, HOP and CUMULATE also run over processing time, a PROCTIME() column).
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, timeAttributeOf } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import { type LogicalNode, LogicalWindowTvf } from '../../plan/logical/logical-node.js';
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
  const [tableArg, descriptor, ...intervals] = call.args;
  if (tableArg?.kind !== 'table-arg' || descriptor === undefined || intervals.length !== parameters.length) {
    const partition = name === 'SESSION' ? ' [PARTITION BY columns]' : '';
    throw new WeirError('INVALID_ARGUMENT', `${name} takes ${name}(TABLE t${partition}, DESCRIPTOR(time_column), ${parameters.join(', ')})`, { span: call.span });
  }
  const partitionBy = tableArg.partitionBy ?? [];
  if (partitionBy.length > 0 && name !== 'SESSION') {
    throw new WeirError('UNSUPPORTED', `PARTITION BY is only allowed for SESSION windows`, { span: tableArg.span });
  }
  const input = bindTable(tableArg);
  const timeIndex = descriptorColumn(descriptor, input, name);
  const partitionKeys = partitionBy.map((e) => columnIndex(e, input, name, 'PARTITION BY'));
  const millis = intervals.map((e) => intervalMillis(e as Expr, ctx, name));
  return windowTvf(input.plan, timeIndex, windowSpec(name, millis, call.span), partitionKeys);
}

/** The window TVF node over `input`, whose column `timeIndex` must be an event-time attribute. */
export function windowTvf(input: LogicalNode, timeIndex: number, window: WindowSpec, partitionKeys: readonly number[]): BoundRelation {
  const schema: Field[] = [
    ...input.schema,
    { name: 'window_start', type: SqlTypes.timestamp(3, false) },
    { name: 'window_end', type: SqlTypes.timestamp(3, false) },
    { name: 'window_time', type: { kind: 'TIMESTAMP' as const, nullable: false, precision: 3, timeAttribute: timeAttributeOf(input.schema[timeIndex]!.type) ?? 'rowtime' } },
  ];
  const plan: LogicalNode = LogicalWindowTvf.create({ input, timeIndex, window, partitionKeys });
  return { plan, schema };
}

/** Throws unless `field` is an event-time attribute, as the time column of window `name` must be. */
export function requireEventTime(field: Field, name: string, span: SourceSpan): void {
  const type = field.type;
  if ((type.kind !== 'TIMESTAMP' && type.kind !== 'TIMESTAMP_LTZ') || type.timeAttribute !== 'rowtime') {
    throw new WeirError('INVALID_ARGUMENT', `the time column '${field.name}' of ${name} must be an event-time attribute`, {
      span,
      hint: name === 'SESSION' ? 'declare WATERMARK FOR that column in the table (processing-time SESSION windows are not supported yet)' : 'declare WATERMARK FOR that column in the table, or use a PROCTIME() column for processing-time windows',
    });
  }
}

/**
 * Throws unless `field` is a time attribute the window `name` can run over: an event-time
 * attribute, or for TUMBLE, HOP and CUMULATE also a processing-time one.
 */
export function requireTimeAttribute(field: Field, name: string, span: SourceSpan): void {
  if (name === 'SESSION' || timeAttributeOf(field.type) !== 'proctime') requireEventTime(field, name, span);
}

function descriptorColumn(descriptor: Expr | TableArg, input: BoundRelation, name: string): number {
  const column = descriptor.kind === 'call' && callName(descriptor) === 'DESCRIPTOR' && descriptor.args.length === 1 ? descriptor.args[0] : undefined;
  if (column?.kind !== 'column-ref' || column.parts.length !== 1) {
    throw new WeirError('INVALID_ARGUMENT', `the second argument of ${name} must be DESCRIPTOR(time_column)`, { span: descriptor.span });
  }
  const index = columnIndex(column, input, name, 'DESCRIPTOR');
  requireTimeAttribute(input.schema[index]!, name, column.span);
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

/** The value of a positive day-time interval literal argument of window `name`, in milliseconds. */
export function intervalMillis(expr: Expr, ctx: Pick<BinderContext, 'functions'>, name: string): number {
  const bound = bindExpr(expr, { scope: new Scope([]), functions: ctx.functions, clause: 'VALUES' });
  if (bound.kind !== 'literal' || bound.type.kind !== 'INTERVAL_DAY_TIME' || typeof bound.value !== 'number' || bound.value <= 0) {
    throw new WeirError('INVALID_ARGUMENT', `the sizes of ${name} must be positive intervals such as INTERVAL '10' SECOND`, { span: expr.span });
  }
  return bound.value;
}

/** The window of function `name` (a key of {@link WINDOW_FUNCTIONS}) from its interval arguments. */
export function windowSpec(name: string, millis: readonly number[], span: SourceSpan): WindowSpec {
  const [first, second] = millis as [number, number | undefined];
  if (name === 'TUMBLE') return { kind: 'TUMBLE', size: first };
  if (name === 'SESSION') return { kind: 'SESSION', gap: first };
  if (second! % first !== 0) {
    throw new WeirError('INVALID_ARGUMENT', `the size of a ${name} window must be a multiple of its ${name === 'HOP' ? 'slide' : 'step'}`, { span });
  }
  return name === 'HOP' ? { kind: 'HOP', slide: first, size: second! } : { kind: 'CUMULATE', step: first, size: second! };
}

/** The names of a window's interval arguments. */
export function windowParameters(name: string): readonly string[] | undefined {
  return WINDOW_PARAMETERS[name];
}
