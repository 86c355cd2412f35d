/**
 * Binds the window table functions `TUMBLE(TABLE t, DESCRIPTOR(ts), size)`,
 * `HOP(TABLE t, DESCRIPTOR(ts), slide, size)` and `CUMULATE(TABLE t, DESCRIPTOR(ts), step, size)`:
 * the table's columns plus `window_start`, `window_end` and `window_time` (a rowtime attribute).
 */
import { WeirError } from '../../common/errors.js';
import { SqlTypes } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall, TableArg } from '../parse/ast.js';
import { bindExpr, callName } from './bind-expr.js';
import type { BinderContext, BoundRelation } from './binder-context.js';
import { Scope } from './scope.js';

/** The table functions this module binds. */
export const WINDOW_FUNCTIONS = new Set(['TUMBLE', 'HOP', 'CUMULATE']);

/** Binds a window TVF call over `input` (the relation named by its TABLE argument). */
export function bindWindowTvf(call: FunctionCall, ctx: BinderContext, bindTable: (arg: TableArg) => BoundRelation): BoundRelation {
  const name = callName(call);
  const [tableArg, descriptor, ...intervals] = call.args;
  const expected = name === 'TUMBLE' ? 1 : 2;
  if (tableArg?.kind !== 'table-arg' || descriptor === undefined || intervals.length !== expected) {
    const shape = name === 'TUMBLE' ? 'TUMBLE(TABLE t, DESCRIPTOR(time_column), size)' : `${name}(TABLE t, DESCRIPTOR(time_column), ${name === 'HOP' ? 'slide' : 'step'}, size)`;
    throw new WeirError('INVALID_ARGUMENT', `${name} takes ${shape}`, { span: call.span });
  }
  if (tableArg.partitionBy !== undefined && tableArg.partitionBy.length > 0) {
    throw new WeirError('UNSUPPORTED', `PARTITION BY is only allowed for SESSION windows`, { span: tableArg.span });
  }
  const input = bindTable(tableArg);
  const timeIndex = descriptorColumn(descriptor, input, name);
  const millis = intervals.map((e) => intervalMillis(e as Expr, ctx, name));
  const window = windowSpec(name, millis, call);
  const schema = [
    ...input.schema,
    { name: 'window_start', type: SqlTypes.timestamp(3, false) },
    { name: 'window_end', type: SqlTypes.timestamp(3, false) },
    { name: 'window_time', type: { kind: 'TIMESTAMP' as const, nullable: false, precision: 3, timeAttribute: 'rowtime' as const } },
  ];
  const plan: LogicalNode = { kind: 'window-tvf', input: input.plan, timeIndex, window, schema };
  return { plan, schema };
}

function descriptorColumn(descriptor: Expr | TableArg, input: BoundRelation, name: string): number {
  const column = descriptor.kind === 'call' && callName(descriptor) === 'DESCRIPTOR' && descriptor.args.length === 1 ? descriptor.args[0] : undefined;
  if (column?.kind !== 'column-ref' || column.parts.length !== 1) {
    throw new WeirError('INVALID_ARGUMENT', `the second argument of ${name} must be DESCRIPTOR(time_column)`, { span: descriptor.span });
  }
  const wanted = column.parts[0]!.name;
  const index = input.schema.findIndex((f) => f.name === wanted || f.name.toLowerCase() === wanted.toLowerCase());
  if (index < 0) throw new WeirError('UNKNOWN_COLUMN', `column '${wanted}' does not exist in the table of ${name}`, { span: column.span });
  const type = input.schema[index]!.type;
  if ((type.kind !== 'TIMESTAMP' && type.kind !== 'TIMESTAMP_LTZ') || type.timeAttribute !== 'rowtime') {
    throw new WeirError('INVALID_ARGUMENT', `the time column '${input.schema[index]!.name}' of ${name} must be an event-time attribute`, {
      span: column.span,
      hint: 'declare WATERMARK FOR that column in the table (processing-time windows are not supported yet)',
    });
  }
  return index;
}

function intervalMillis(expr: Expr, ctx: BinderContext, name: string): number {
  const bound = bindExpr(expr, { scope: new Scope([]), functions: ctx.functions, clause: 'VALUES' });
  if (bound.kind !== 'literal' || bound.type.kind !== 'INTERVAL_DAY_TIME' || typeof bound.value !== 'number' || bound.value <= 0) {
    throw new WeirError('INVALID_ARGUMENT', `the sizes of ${name} must be positive intervals such as INTERVAL '10' SECOND`, { span: expr.span });
  }
  return bound.value;
}

function windowSpec(name: string, millis: readonly number[], call: FunctionCall): WindowSpec {
  const [first, second] = millis as [number, number | undefined];
  if (name === 'TUMBLE') return { kind: 'TUMBLE', size: first };
  if (second! % first !== 0) {
    throw new WeirError('INVALID_ARGUMENT', `the size of a ${name} window must be a multiple of its ${name === 'HOP' ? 'slide' : 'step'}`, { span: call.span });
  }
  return name === 'HOP' ? { kind: 'HOP', slide: first, size: second! } : { kind: 'CUMULATE', step: first, size: second! };
}
