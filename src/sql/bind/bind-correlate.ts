/**
 * Binds the FROM items whose rows are a function of the row beside them (Flink's Correlate):
 * `UNNEST(expr) [WITH ORDINALITY] [AS t(cols)]` and `[LATERAL] TABLE(f(args)) [AS t(cols)]` of a
 * user-defined table function, after `CROSS JOIN`, a comma, `[INNER] JOIN ... ON` or
 * `LEFT [OUTER] JOIN ... ON` (rows without any output kept once, NULL-padded), or alone in FROM
 * (over one row of no columns). Their arguments read the columns of the items to their left.
 *
 * UNNEST of an ARRAY gives one column (named by the alias's column list, else the alias, else
 * `EXPR$0`); of an ARRAY of ROWs one column per field; of a MAP `KEY` and `VALUE`; WITH ORDINALITY
 * adds `ORDINALITY` (INT, from 1). A RIGHT or FULL join with one is refused, as in Flink.
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, withNullable } from '../../common/sql-type.js';
import type { CorrelateFunction } from '../../expr/correlate-function.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';
import { LogicalCorrelate, LogicalValues, type LogicalNode } from '../../plan/logical/logical-node.js';
import type { Expr, Identifier, JoinRef, TableFunctionRef, TableRef, UnnestRef } from '../parse/ast.js';
import { requireBoolean } from './bind-aggregate-call.js';
import { bindExpr, callName, castTo, type ExprBindContext } from './bind-expr.js';
import { WINDOW_FUNCTIONS } from './bind-window-tvf.js';
import type { BinderContext } from './binder-context.js';
import type { BoundFrom } from './bind-query.js';
import { Scope } from './scope.js';

/** A FROM item bound as a Correlate. */
export type CorrelatedRef = UnnestRef | TableFunctionRef;

/** Whether a FROM item is UNNEST or a (non-window) table function: a function of the rows to its left. */
export function isCorrelated(ref: TableRef): boolean {
  return ref.kind === 'unnest' || (ref.kind === 'table-function' && !WINDOW_FUNCTIONS.has(callName(ref.call)));
}

/** `left <join> right` where `right` is correlated (see the module comment). */
export function bindCorrelatedJoin(ref: JoinRef & { readonly right: CorrelatedRef }, left: BoundFrom, ctx: BinderContext): BoundFrom {
  const what = ref.right.kind === 'unnest' ? 'UNNEST' : 'a table function';
  if (ref.natural === true || ref.using !== undefined) {
    throw new WeirError('UNSUPPORTED', `a join with ${what} takes ON, not USING or NATURAL`, { span: ref.span, hint: 'write CROSS JOIN, or [LEFT] JOIN ... ON TRUE' });
  }
  if (ref.type === 'RIGHT' || ref.type === 'FULL') {
    throw new WeirError('UNSUPPORTED', `a ${ref.type} JOIN with ${what} is not supported (Flink refuses it too)`, {
      span: ref.span,
      hint: 'its rows are computed from each row to its left: write CROSS JOIN, or LEFT JOIN ... ON TRUE to keep rows that give none',
    });
  }
  return bindCorrelate(left, ref.right, ref.type === 'LEFT' ? 'LEFT' : 'INNER', ref.on, ctx);
}

/** UNNEST or a table function alone in FROM: over one row of no columns. */
export function bindCorrelatedAlone(ref: CorrelatedRef, ctx: BinderContext): BoundFrom {
  const single: LogicalNode = LogicalValues.create({ rows: [[]], columns: [] });
  return bindCorrelate({ plan: single, scope: new Scope([]) }, ref, 'INNER', undefined, ctx);
}

function bindCorrelate(left: BoundFrom, ref: CorrelatedRef, joinType: 'INNER' | 'LEFT', on: Expr | undefined, ctx: BinderContext): BoundFrom {
  const exprContext: ExprBindContext = { scope: left.scope, functions: ctx.functions, clause: 'ON' };
  const { fn, fields } = ref.kind === 'unnest' ? unnestFunction(ref, exprContext) : tableFunction(ref, exprContext, ctx);
  const names = columnNames(ref, fields, ref.span);
  const produced: Field[] = fields.map((f, i) => ({ name: names[i]!, type: joinType === 'LEFT' ? withNullable(f.type, true) : f.type }));
  const scope = left.scope.concat(Scope.of(produced, ref.alias?.name));
  let condition: ScalarExpr | null = null;
  if (on !== undefined) {
    const bound = bindExpr(on, { scope, functions: ctx.functions, clause: 'ON' });
    requireBoolean(bound, 'ON', on.span);
    condition = bound.kind === 'literal' && bound.value === true ? null : bound;
  }
  const plan: LogicalNode = LogicalCorrelate.create({ input: left.plan, fn, joinType, condition, columns: produced });
  return { plan, scope };
}

function unnestFunction(ref: UnnestRef, exprContext: ExprBindContext): { fn: CorrelateFunction; fields: Field[] } {
  if (ref.others.length > 0) {
    throw new WeirError('UNSUPPORTED', `UNNEST of ${ref.others.length + 1} collections is not supported`, {
      span: ref.others[0]!.span,
      hint: 'unnest one ARRAY or MAP per UNNEST: CROSS JOIN UNNEST(a) AS x(u) CROSS JOIN UNNEST(b) AS y(v) gives every pair',
    });
  }
  const expr = bindExpr(ref.expr, exprContext);
  const type = expr.type;
  const ordinality: Field[] = ref.withOrdinality ? [{ name: 'ORDINALITY', type: SqlTypes.int(false) }] : [];
  const { withOrdinality } = ref;
  if (type.kind === 'ARRAY' && type.element.kind === 'ROW') {
    const fields = type.element.fields.map((f) => ({ name: f.name, type: withNullable(f.type, true) }));
    return { fn: { kind: 'unnest', expr, source: 'array-of-rows', withOrdinality }, fields: [...fields, ...ordinality] };
  }
  if (type.kind === 'ARRAY') {
    const name = ref.alias?.name ?? 'EXPR$0';
    return { fn: { kind: 'unnest', expr, source: 'array', withOrdinality }, fields: [{ name, type: withNullable(type.element, true) }, ...ordinality] };
  }
  if (type.kind === 'MAP') {
    const fields = [
      { name: 'KEY', type: withNullable(type.key, true) },
      { name: 'VALUE', type: withNullable(type.value, true) },
    ];
    return { fn: { kind: 'unnest', expr, source: 'map', withOrdinality }, fields: [...fields, ...ordinality] };
  }
  throw new WeirError('TYPE_MISMATCH', `UNNEST takes an ARRAY or a MAP, got ${type.kind}`, { span: ref.expr.span });
}

function tableFunction(ref: TableFunctionRef, exprContext: ExprBindContext, ctx: BinderContext): { fn: CorrelateFunction; fields: Field[] } {
  const name = callName(ref.call);
  const definition = ctx.functions.lookupTable(name);
  if (definition === undefined) {
    const scalar = ctx.functions.lookup(name);
    throw new WeirError(scalar === undefined ? 'UNKNOWN_FUNCTION' : 'INVALID_ARGUMENT', scalar === undefined ? `table function '${name}' does not exist` : `${name} is a ${scalar.kind} function, not a table function`, {
      span: ref.call.span,
      hint: "register one with CREATE FUNCTION f AS './module.mjs' whose export has kind: 'table' (see the README), or call a scalar function in SELECT",
    });
  }
  const named = ref.call.argumentNames?.find((n) => n !== null);
  if (named) throw new WeirError('UNSUPPORTED', `named arguments are only taken by the window functions, not by ${name}`, { span: named.span });
  const args = ref.call.args.map((arg) => {
    if (arg.kind === 'table-arg') throw new WeirError('INVALID_ARGUMENT', `TABLE arguments are only taken by window functions, not by ${name}`, { span: arg.span });
    if (arg.kind === 'star') throw new WeirError('INVALID_ARGUMENT', `${name}(*) is not allowed`, { span: arg.span });
    return bindExpr(arg, exprContext);
  });
  let types;
  try {
    types = definition.resolveArgs(args.map((a) => a.type));
  } catch (error) {
    throw error instanceof WeirError ? error.withSpan(ref.call.span) : error;
  }
  const casted = args.map((a, i) => castTo(a, types[i] ?? a.type));
  return { fn: { kind: 'table-function', name: definition.name, args: casted }, fields: [...definition.columns] };
}

/** The produced columns' names: the alias's column list when given (its length must match). */
function columnNames(ref: CorrelatedRef, fields: readonly Field[], span: SourceSpan): string[] {
  const given: readonly Identifier[] | undefined = ref.columnAliases;
  if (given === undefined) return fields.map((f) => f.name);
  if (given.length !== fields.length) {
    const what = ref.kind === 'unnest' ? 'UNNEST' : callName(ref.call);
    throw new WeirError('INVALID_ARGUMENT', `${given.length} column names given for ${what}, which gives ${fields.length} columns (${fields.map((f) => f.name).join(', ')})`, { span });
  }
  return given.map((c) => c.name);
}
