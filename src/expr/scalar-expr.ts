/**
 * Typed scalar expressions: the resolved form of SQL expressions that the planner, the job graph
 * and the runtime share. Immutable and JSON-serialisable (literal values use the representation
 * of common/sql-type.ts; bigint DECIMAL literals are stored as `{ $decimal: "<unscaled>" }` by the
 * job-graph serialiser, not here).
 */
import type { SqlType } from '../common/sql-type.js';

/** Any typed scalar expression. */
export type ScalarExpr = InputRef | LiteralExpr | CallExpr | FieldExpr | CaseWhenExpr | CastToExpr;

/** The value of column `index` of the input row. */
export interface InputRef {
  readonly kind: 'input-ref';
  readonly index: number;
  readonly type: SqlType;
}

/** A constant; `value` uses the runtime representation of `type` (null for SQL NULL). */
export interface LiteralExpr {
  readonly kind: 'literal';
  readonly value: unknown;
  readonly type: SqlType;
}

/**
 * A call of a function from the registry, by canonical (upper-case) name. Operators are calls
 * too: `AND`, `OR`, `NOT`, `=`, `<>`, `<`, `<=`, `>`, `>=`, `IS DISTINCT FROM`, `+`, `-`, `*`,
 * `/`, `%` (MOD), `NEGATE`, `||`, `IS NULL`, `IS NOT NULL`, `IS TRUE`, `IS FALSE`, `IS NOT TRUE`,
 * `IS NOT FALSE`, `LIKE`, `IN` (first argument the value, the rest the list). The argument types
 * already match what the function expects: the binder inserts casts.
 */
export interface CallExpr {
  readonly kind: 'call';
  readonly name: string;
  readonly args: readonly ScalarExpr[];
  readonly type: SqlType;
}

/** Field `index` of a ROW-typed expression (NULL when the row is NULL). */
export interface FieldExpr {
  readonly kind: 'field';
  readonly expr: ScalarExpr;
  readonly index: number;
  readonly type: SqlType;
}

/** Searched CASE: the first `when` that is TRUE picks its `then`; otherwise `else`. Evaluated lazily. */
export interface CaseWhenExpr {
  readonly kind: 'case';
  readonly whens: readonly { readonly when: ScalarExpr; readonly then: ScalarExpr }[];
  readonly else: ScalarExpr;
  readonly type: SqlType;
}

/** CAST (an error when the value does not convert) or TRY_CAST (NULL instead). */
export interface CastToExpr {
  readonly kind: 'cast';
  readonly expr: ScalarExpr;
  readonly type: SqlType;
  readonly try: boolean;
}

/** Builders that keep call sites short. */
export const Exprs = {
  inputRef: (index: number, type: SqlType): InputRef => ({ kind: 'input-ref', index, type }),
  literal: (value: unknown, type: SqlType): LiteralExpr => ({ kind: 'literal', value, type }),
  call: (name: string, args: readonly ScalarExpr[], type: SqlType): CallExpr => ({ kind: 'call', name, args, type }),
  field: (expr: ScalarExpr, index: number, type: SqlType): FieldExpr => ({ kind: 'field', expr, index, type }),
  cast: (expr: ScalarExpr, type: SqlType, tryCast = false): CastToExpr => ({ kind: 'cast', expr, type, try: tryCast }),
} as const;

/** Column indexes an expression reads, in first-use order. */
export function inputRefsOf(expr: ScalarExpr, into: number[] = []): number[] {
  switch (expr.kind) {
    case 'input-ref':
      if (!into.includes(expr.index)) into.push(expr.index);
      break;
    case 'literal':
      break;
    case 'call':
      for (const arg of expr.args) inputRefsOf(arg, into);
      break;
    case 'field':
    case 'cast':
      inputRefsOf(expr.expr, into);
      break;
    case 'case':
      for (const { when, then } of expr.whens) {
        inputRefsOf(when, into);
        inputRefsOf(then, into);
      }
      inputRefsOf(expr.else, into);
      break;
  }
  return into;
}

/** Rewrites every input reference through `map` (old index → new expression). */
export function remapInputs(expr: ScalarExpr, map: (ref: InputRef) => ScalarExpr): ScalarExpr {
  switch (expr.kind) {
    case 'input-ref':
      return map(expr);
    case 'literal':
      return expr;
    case 'call':
      return { ...expr, args: expr.args.map((a) => remapInputs(a, map)) };
    case 'field':
      return { ...expr, expr: remapInputs(expr.expr, map) };
    case 'cast':
      return { ...expr, expr: remapInputs(expr.expr, map) };
    case 'case':
      return {
        ...expr,
        whens: expr.whens.map(({ when, then }) => ({ when: remapInputs(when, map), then: remapInputs(then, map) })),
        else: remapInputs(expr.else, map),
      };
  }
}
