/** Binds one aggregate call's arguments, FILTER and result type; shared by GROUP BY and OVER aggregation. */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import { SqlTypes, type SqlType } from '../../common/sql-type.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';
import type { AggregateCall } from '../../plan/logical/logical-node.js';
import type { FunctionCall } from '../parse/ast.js';
import { bindExpr, callName, castTo, containsAggregate, type ExprBindContext } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import type { Scope } from './scope.js';

/**
 * The aggregate call `call` (a registered aggregate function) with its arguments and FILTER
 * condition bound over `scope` and placed as input columns by `indexOfPre` (which returns the
 * column of an expression, adding it to the aggregation's pre-projection when needed).
 */
export function bindAggregateCall(call: FunctionCall, scope: Scope, ctx: BinderContext, indexOfPre: (e: ScalarExpr) => number): Omit<AggregateCall, 'name'> {
  const name = nestedJsonAggregate(callName(call), call);
  const definition = ctx.functions.lookup(name);
  if (definition === undefined || definition.kind !== 'aggregate') throw new WeirError('INTERNAL_ERROR', `${name} is not an aggregate function`);
  const argContext: ExprBindContext = { scope, functions: ctx.functions, clause: 'aggregate argument' };
  const isCountStar = call.args.length === 1 && call.args[0]!.kind === 'star';
  if (isCountStar && name !== 'COUNT') throw new WeirError('INVALID_ARGUMENT', `${name}(*) is not allowed; only COUNT(*)`, { span: call.span });
  const args = isCountStar
    ? []
    : call.args.map((arg) => {
        if (arg.kind === 'table-arg') throw new WeirError('INVALID_ARGUMENT', 'TABLE arguments are not allowed in aggregate functions', { span: arg.span });
        if (containsAggregate(arg, ctx.functions)) throw new WeirError('INVALID_ARGUMENT', 'aggregate function calls cannot be nested', { span: arg.span });
        return bindExpr(arg, argContext);
      });
  if (isCountStar && call.distinct) throw new WeirError('INVALID_ARGUMENT', 'COUNT(DISTINCT *) is not allowed', { span: call.span });
  let signature;
  try {
    signature = definition.resolve(
      args.map((a) => a.type),
      args.map((a) => (a.kind === 'literal' ? { value: a.value } : undefined)),
    );
  } catch (error) {
    throw error instanceof WeirError ? error.withSpan(call.span) : error;
  }
  const casted = args.map((a, i) => castTo(a, signature.args[i] ?? a.type));
  let filter: number | null = null;
  if (call.filter !== undefined) {
    const condition = bindExpr(call.filter, { ...argContext, clause: 'aggregate argument' });
    requireBoolean(condition, 'FILTER', call.filter.span);
    filter = indexOfPre(condition);
  }
  return {
    function: definition.name,
    args: casted.map(indexOfPre),
    argTypes: casted.map((a) => a.type),
    distinct: call.distinct,
    filter,
    type: name === 'COUNT' ? SqlTypes.bigint(false) : (signature.returns as SqlType),
  };
}

/**
 * JSON_ARRAYAGG/JSON_OBJECTAGG of a value written by JSON_OBJECT or JSON_ARRAY is the
 * function's `_NESTED` form, which nests the value as JSON rather than quoting it, as Flink does.
 */
function nestedJsonAggregate(name: string, call: FunctionCall): string {
  if (!/^JSON_(ARRAY|OBJECT)AGG_(NULL|ABSENT)_ON_NULL$/.test(name)) return name;
  const value = call.args[call.args.length - 1];
  const nested = value?.kind === 'call' && ['JSON_OBJECT', 'JSON_ARRAY'].includes(callName(value));
  return nested ? `${name}_NESTED` : name;
}

/** Throws unless `expr` is BOOLEAN (or NULL). */
export function requireBoolean(expr: ScalarExpr, clause: string, span: SourceSpan): void {
  if (expr.type.kind !== 'BOOLEAN' && expr.type.kind !== 'NULL') {
    throw new WeirError('TYPE_MISMATCH', `${clause} condition must be BOOLEAN, got ${expr.type.kind}`, { span });
  }
}
