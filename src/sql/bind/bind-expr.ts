/**
 * Binds expression syntax to typed scalar expressions over a scope: resolves names and
 * functions, types literals, and inserts the implicit casts the resolved signatures ask for.
 * Aggregate calls are handed to a callback, because only a GROUP BY context knows what they
 * become.
 */
import { closestName, WeirError, type SourceSpan } from '../../common/errors.js';
import { INT64_MIN } from '../../common/int64.js';
import { formatType, sameType, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import type { FunctionRegistry } from '../../expr/function-registry.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { canCast, castRefusal, leastRestrictive } from '../../expr/type-coercion.js';
import type { ExistsExpr, Expr, FunctionCall, Identifier, InSubqueryExpr, QuantifiedComparison, ScalarSubquery, SelectQuery } from '../parse/ast.js';
import { bindType } from './bind-type.js';
import { binaryLiteral, intervalLiteral, numberLiteral, rowCount, typedLiteral } from './literal-values.js';
import { accessFields, type Scope } from './scope.js';
import { unsupportedFunctionReason } from './unsupported-functions.js';

/** Where an expression is being bound, for the error when an aggregate appears where it may not. */
export type ExprClause = 'SELECT' | 'WHERE' | 'HAVING' | 'GROUP BY' | 'ON' | 'VALUES' | 'computed column' | 'WATERMARK' | 'aggregate argument' | 'ORDER BY';

/** What binding an expression needs. */
export interface ExprBindContext {
  readonly scope: Scope;
  readonly functions: FunctionRegistry;
  readonly clause: ExprClause;
  /** Turns an aggregate call into an expression; absent where aggregates are not allowed. */
  readonly onAggregate?: (call: FunctionCall) => ScalarExpr;
  /** Binds `<W>_START | _END | _ROWTIME | _PROCTIME(...)`; present only over a GROUP BY with a group window. */
  readonly onWindowProperty?: (call: FunctionCall) => ScalarExpr;
  /** Turns a call with an OVER clause into an expression; present only in a SELECT list that has them. */
  readonly onWindowCall?: (call: FunctionCall) => ScalarExpr;
  /** Binds `GROUPING(...)` / `GROUPING_ID(...)` / `GROUP_ID()`; present only in the SELECT and HAVING of a grouped query. */
  readonly onGrouping?: (call: FunctionCall) => ScalarExpr;
  /** Binds a scalar subquery (see bind-subquery.ts); present where the binder can plan one. */
  readonly onSubquery?: (subquery: ScalarSubquery) => ScalarExpr;
  /** Binds `x [NOT] IN (subquery)` or `x <op> ANY | ALL (subquery)` used as a value; present where the binder can plan one. */
  readonly onInValue?: (predicate: InSubqueryExpr | QuantifiedComparison) => ScalarExpr;
}

/** The functions that tell which grouping set a row of a grouped query belongs to. */
export const GROUPING_FUNCTIONS: ReadonlySet<string> = new Set(['GROUPING', 'GROUPING_ID', 'GROUP_ID']);

/** The functions that read the bounds of a legacy group window (`SESSION_START(ts, gap)`, ...). */
export const GROUP_WINDOW_PROPERTY = /^(TUMBLE|HOP|SESSION)_(START|END|ROWTIME|PROCTIME)$/;

/** Binds one expression. */
export function bindExpr(expr: Expr, ctx: ExprBindContext): ScalarExpr {
  switch (expr.kind) {
    case 'column-ref':
      return ctx.scope.resolve(expr.parts, expr.span);
    case 'literal':
      switch (expr.type) {
        case 'number':
          return numberLiteral(expr.text, expr.span);
        case 'string':
          // CHAR(n) NOT NULL of its n characters; '' is CHAR(0), Flink's CharType.ofEmptyLiteral().
          return Exprs.literal(expr.value, SqlTypes.char(expr.value.length, false));
        case 'boolean':
          return Exprs.literal(expr.value, SqlTypes.boolean(false));
        case 'binary':
          return binaryLiteral(expr.hex, expr.span);
        case 'null':
          return Exprs.literal(null, SqlTypes.null());
      }
      break;
    case 'interval':
      return intervalLiteral(expr);
    case 'typed-literal':
      return typedLiteral(expr);
    case 'unary': {
      const operand = bindExpr(expr.operand, ctx);
      if (expr.op === '+') return operand;
      // A negative number is a literal, as in Calcite, so that functions reading constants (ROUND's digits) see it.
      if (expr.op === '-' && operand.kind === 'literal' && (typeof operand.value === 'number' || typeof operand.value === 'bigint')) {
        // -9223372036854775808: the literal 2^63 is a DECIMAL(19, 0), its negation Long.MIN_VALUE a BIGINT.
        if (operand.type.kind === 'DECIMAL' && operand.type.scale === 0 && operand.value === -INT64_MIN) return Exprs.literal(INT64_MIN, SqlTypes.bigint(false));
        return Exprs.literal(-operand.value, operand.type);
      }
      return makeCall(expr.op === 'NOT' ? 'NOT' : 'NEGATE', [operand], expr.span, ctx);
    }
    case 'binary': {
      const left = bindExpr(expr.left, ctx);
      const right = bindExpr(expr.right, ctx);
      return makeCall(expr.op, [left, right], expr.span, ctx);
    }
    case 'call':
      return bindCall(expr, ctx);
    case 'case':
      return bindCase(expr, ctx);
    case 'cast': {
      const operand = bindExpr(expr.expr, ctx);
      const target = withNullable(bindType(expr.type), operand.type.nullable || expr.try);
      if (!canCast(operand.type, target)) {
        throw new WeirError('TYPE_MISMATCH', castRefusal(operand.type, target, describe), { span: expr.span });
      }
      return Exprs.cast(operand, target, expr.try);
    }
    case 'between': {
      const value = bindExpr(expr.expr, ctx);
      const low = bindExpr(expr.low, ctx);
      const high = bindExpr(expr.high, ctx);
      const within = (lo: ScalarExpr, hi: ScalarExpr): ScalarExpr =>
        makeCall('AND', [makeCall('>=', [value, lo], expr.span, ctx), makeCall('<=', [value, hi], expr.span, ctx)], expr.span, ctx);
      const test = expr.symmetric ? makeCall('OR', [within(low, high), within(high, low)], expr.span, ctx) : within(low, high);
      return expr.negated ? makeCall('NOT', [test], expr.span, ctx) : test;
    }
    case 'in-list': {
      const value = bindExpr(expr.expr, ctx);
      const list = expr.list.map((e) => bindExpr(e, ctx));
      const test = makeCall('IN', [value, ...list], expr.span, ctx);
      return expr.negated ? makeCall('NOT', [test], expr.span, ctx) : test;
    }
    case 'like': {
      const args = [bindExpr(expr.expr, ctx), bindExpr(expr.pattern, ctx)];
      if (expr.escape !== undefined) args.push(bindExpr(expr.escape, ctx));
      const test = makeCall(expr.op, args, expr.span, ctx);
      return expr.negated ? makeCall('NOT', [test], expr.span, ctx) : test;
    }
    case 'is': {
      const operand = bindExpr(expr.expr, ctx);
      const test = expr.test === 'UNKNOWN' ? 'NULL' : expr.test;
      return makeCall(`IS ${expr.negated ? 'NOT ' : ''}${test}`, [operand], expr.span, ctx);
    }
    case 'field-access':
      return accessFields(bindExpr(expr.expr, ctx), [expr.field]);
    case 'star':
      throw new WeirError('INVALID_ARGUMENT', '* is only allowed in a select list or in COUNT(*)', { span: expr.span });
    case 'item-access':
      return makeCall('ITEM', [bindExpr(expr.expr, ctx), bindExpr(expr.index, ctx)], expr.span, ctx);
    case 'scalar-subquery': {
      const flattened = ctx.onSubquery === undefined ? undefined : withoutGlobalHaving(expr, ctx.functions);
      if (flattened !== undefined) return bindExpr(flattened, ctx);
      if (ctx.onSubquery !== undefined) return ctx.onSubquery(expr);
      throw new WeirError('UNSUPPORTED', `a scalar subquery is not supported in ${ctx.clause}`, {
        span: expr.span,
        hint: 'scalar subqueries are supported in WHERE, HAVING and the SELECT list; compute the value in a subquery of FROM and join it',
      });
    }
    case 'in-subquery':
    case 'exists':
    case 'quantified': {
      const flattened = ctx.onSubquery === undefined ? undefined : withoutGlobalHaving(expr, ctx.functions);
      if (flattened !== undefined) return bindExpr(flattened, ctx);
      const counted = expr.kind === 'exists' && ctx.onSubquery !== undefined ? existsAsCount(expr, ctx.functions) : undefined;
      if (counted !== undefined) return bindExpr(counted, ctx);
      if (expr.kind !== 'exists' && ctx.onInValue !== undefined) return ctx.onInValue(expr);
      const what = expr.kind === 'exists' ? 'EXISTS (subquery)' : expr.kind === 'in-subquery' ? 'IN (subquery)' : `${expr.op} ${expr.quantifier} (subquery)`;
      const where = ctx.clause === 'WHERE' || ctx.clause === 'HAVING' ? `inside another expression of ${ctx.clause}` : `in ${ctx.clause}`;
      throw new WeirError('UNSUPPORTED', `${what} is not supported ${where}: only as a condition of WHERE or HAVING, alone or AND-ed with others (NOT allowed)`, {
        span: expr.span,
        hint: expr.kind === 'exists' ? 'for a value, write (SELECT COUNT(*) FROM ... WHERE ...) > 0' : 'for a value, compare with a scalar subquery or use a LEFT JOIN; an OR of conditions can be written as a UNION of queries',
      });
    }
  }
  throw new WeirError('INTERNAL_ERROR', `unhandled expression kind`);
}

/**
 * `[NOT] EXISTS (SELECT ... FROM f WHERE w)` used as a value (in the SELECT list, under OR or
 * CASE): `(SELECT COUNT(*) FROM f WHERE w) > 0` (`= 0` for NOT EXISTS), a scalar subquery, which is
 * never NULL (COUNT over no rows is 0). With `[LIMIT n] OFFSET m` (n > 0), rows are left when
 * there are more than m: `COUNT(*) > m` (`<= m`); LIMIT 0 leaves none: FALSE (TRUE). Undefined for
 * a subquery that groups or aggregates, or has DISTINCT and an OFFSET. (A condition of WHERE or
 * HAVING is planned as a semi or anti join instead.)
 */
function existsAsCount(expr: ExistsExpr, functions: FunctionRegistry): Expr | undefined {
  const query = expr.query;
  if (query.kind !== 'select' || query.groupBy.length > 0 || query.having !== undefined || (query.offset !== undefined && query.distinct)) return undefined;
  if (query.items.some((i) => i.kind === 'select-expr' && containsAggregate(i.expr, functions))) return undefined;
  const span = expr.span;
  const count = query.limit === undefined ? undefined : rowCount(query.limit, 'LIMIT');
  if (count === 0) return { kind: 'literal', span, type: 'boolean', value: expr.negated };
  const skip = query.offset === undefined ? 0 : rowCount(query.offset, 'OFFSET');
  const name = { kind: 'qualified-name' as const, span, parts: [{ kind: 'identifier' as const, span, name: 'COUNT', quoted: false }] };
  const countStar: Expr = { kind: 'call', span, name, args: [{ kind: 'star', span, qualifier: [] }], distinct: false };
  const counted: SelectQuery = { ...query, distinct: false, items: [{ kind: 'select-expr', span, expr: countStar }], orderBy: [], windows: [], limit: undefined, offset: undefined };
  const threshold: Expr = { kind: 'literal', span, type: 'number', text: String(skip) };
  return { kind: 'binary', span, op: expr.negated ? '<=' : '>', left: { kind: 'scalar-subquery', span: query.span, query: counted }, right: threshold };
}

/**
 * A subquery expression over a select block that aggregates without GROUP BY and has a HAVING
 * (which reads an aggregate), rewritten into scalar subqueries over the same block without the
 * HAVING, which always have exactly one row (per outer row, correlated or not): the block has its
 * one row when `h` holds, else none. With `flag` = `(SELECT CASE WHEN h THEN TRUE ELSE FALSE END ...)`
 * and `v` = `(SELECT CASE WHEN h THEN item END ...)`:
 * - `(SELECT item ... HAVING h)` is `v` (NULL without the row);
 * - `[NOT] EXISTS` is `[NOT] flag`;
 * - `x [NOT] IN`, `x op ANY | ALL` are `CASE WHEN flag THEN x op v ELSE <over no rows> END` (FALSE,
 *   for ALL TRUE), `(x, y) IN` the AND of the fields' equalities with their `v`s, NOT IN negated.
 * Undefined for any other expression. (The block over no rows is the COUNT-bug case of the scalar
 * subqueries: its HAVING and items are evaluated with COUNT 0 and other aggregates NULL.)
 */
export function withoutGlobalHaving(expr: Expr, functions: FunctionRegistry): Expr | undefined {
  if (expr.kind !== 'scalar-subquery' && expr.kind !== 'exists' && expr.kind !== 'in-subquery' && expr.kind !== 'quantified') return undefined;
  const query = expr.query;
  if (query.kind !== 'select' || query.groupBy.length > 0 || query.having === undefined || !containsAggregate(query.having, functions)) return undefined;
  const having = query.having;
  const span = expr.span;
  const bool = (value: boolean): Expr => ({ kind: 'literal', span, type: 'boolean', value });
  const block = (item: Expr, alias?: Identifier): Expr => ({
    kind: 'scalar-subquery',
    span: query.span,
    query: { ...query, having: undefined, items: [{ kind: 'select-expr', span: item.span, expr: item, ...(alias === undefined ? {} : { alias }) }] },
  });
  const when = (then: Expr, otherwise?: Expr): Expr => ({ kind: 'case', span, whens: [{ when: having, then }], ...(otherwise === undefined ? {} : { else: otherwise }) });
  const items = query.items.flatMap((i) => (i.kind === 'select-expr' ? [i] : []));
  if (items.length !== query.items.length) return undefined;
  const values = items.map((i) => block(when(i.expr), i.alias));
  if (expr.kind === 'scalar-subquery') return items.length === 1 ? values[0] : undefined;
  const flag = block(when(bool(true), bool(false)));
  if (expr.kind === 'exists') return expr.negated ? { kind: 'unary', span, op: 'NOT', operand: flag } : flag;
  const op = expr.kind === 'in-subquery' ? '=' : expr.op;
  const fields = expr.expr.kind === 'call' && callName(expr.expr) === 'ROW' && expr.expr.args.length > 1 ? expr.expr.args : [expr.expr];
  if (fields.length !== values.length || fields.some((f) => f.kind === 'star' || f.kind === 'table-arg')) return undefined;
  const compared = fields.map((f, i): Expr => ({ kind: 'binary', span, op, left: f as Expr, right: values[i]! }));
  const comparison = compared.reduce((a, b) => ({ kind: 'binary', span, op: 'AND', left: a, right: b }));
  const overNoRows = bool(expr.kind === 'quantified' && expr.quantifier === 'ALL');
  const result: Expr = { kind: 'case', span, whens: [{ when: flag, then: comparison }], else: overNoRows };
  return expr.kind === 'in-subquery' && expr.negated ? { kind: 'unary', span, op: 'NOT', operand: result } : result;
}

/** True when the expression contains an aggregate call (outside any OVER window). */
export function containsAggregate(expr: Expr | undefined, functions: FunctionRegistry): boolean {
  if (expr === undefined) return false;
  let found = false;
  visitExpr(expr, (e) => {
    if (e.kind === 'call' && e.over === undefined && functions.lookup(callName(e))?.kind === 'aggregate') found = true;
  });
  return found;
}

/** What Flink SQL calls functions of PostgreSQL (and RisingWave) that it lacks under their names. */
const FLINK_EQUIVALENTS: Readonly<Record<string, string>> = {
  STRING_AGG: "Flink's is LISTAGG(s, separator) (the values in arrival order)",
  BOOL_AND: 'Flink has no BOOL_AND: MIN(CASE WHEN b THEN 1 ELSE 0 END) = 1 is TRUE when every value is',
  BOOL_OR: 'Flink has no BOOL_OR: MAX(CASE WHEN b THEN 1 ELSE 0 END) = 1 is TRUE when some value is',
  DATE_TRUNC: "Flink's is FLOOR(ts TO HOUR) (or TO DAY, MONTH, ...)",
  LENGTH: "Flink's is CHAR_LENGTH(s)",
  STRPOS: "Flink's is POSITION(sub IN s)",
  TO_CHAR: "Flink's is DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss') (Java date patterns)",
  ARRAY_LENGTH: "Flink's is CARDINALITY(array)",
};

/** The canonical (upper-case) name of a call. */
export function callName(call: FunctionCall): string {
  return call.name.parts.map((p) => p.name).join('.').toUpperCase();
}

/** Visits an expression and its sub-expressions (not into subqueries). */
export function visitExpr(expr: Expr, visit: (e: Expr) => void): void {
  visit(expr);
  const children: (Expr | undefined)[] = [];
  switch (expr.kind) {
    case 'unary':
      children.push(expr.operand);
      break;
    case 'binary':
      children.push(expr.left, expr.right);
      break;
    case 'call':
      for (const arg of expr.args) if (arg.kind !== 'table-arg') children.push(arg);
      children.push(expr.filter);
      break;
    case 'case':
      children.push(expr.operand, ...expr.whens.flatMap((w) => [w.when, ...(w.alternatives ?? []), w.then]), expr.else);
      break;
    case 'cast':
    case 'field-access':
      children.push(expr.expr);
      break;
    case 'between':
      children.push(expr.expr, expr.low, expr.high);
      break;
    case 'in-list':
      children.push(expr.expr, ...expr.list);
      break;
    case 'in-subquery':
    case 'quantified':
      children.push(expr.expr);
      break;
    case 'like':
      children.push(expr.expr, expr.pattern, expr.escape);
      break;
    case 'is':
      children.push(expr.expr);
      break;
    case 'item-access':
      children.push(expr.expr, expr.index);
      break;
    default:
      break;
  }
  for (const child of children) if (child !== undefined) visitExpr(child, visit);
}

function bindCall(call: FunctionCall, ctx: ExprBindContext): ScalarExpr {
  const name = callName(call);
  if (call.over !== undefined && ctx.onWindowCall !== undefined) return ctx.onWindowCall(call);
  if (call.over !== undefined) {
    const where = ctx.clause === 'SELECT' ? 'a SELECT with GROUP BY or aggregates' : ctx.clause;
    throw new WeirError('UNSUPPORTED', `${name}(...) OVER is not supported in ${where}`, { span: call.over.span, hint: 'compute it in a subquery' });
  }
  if (GROUP_WINDOW_PROPERTY.test(name)) {
    if (ctx.onWindowProperty === undefined) {
      throw new WeirError('INVALID_ARGUMENT', `${name} is only allowed in the SELECT or HAVING of a query that groups by ${name.slice(0, name.indexOf('_'))}(...)`, { span: call.span });
    }
    return ctx.onWindowProperty(call);
  }
  if (GROUPING_FUNCTIONS.has(name) && call.over === undefined && ctx.functions.lookup(name) === undefined) {
    if (ctx.onGrouping === undefined) {
      throw new WeirError('INVALID_ARGUMENT', `${name} is only allowed in the SELECT or HAVING of a query with GROUP BY, not in ${ctx.clause}`, {
        span: call.span,
        hint: ctx.clause === 'ORDER BY' ? `select it (${name}(${name === 'GROUP_ID' ? '' : '...'}) AS g) and order by g` : 'group the query (GROUP BY, ROLLUP, CUBE or GROUPING SETS) and call it in SELECT or HAVING',
      });
    }
    return ctx.onGrouping(call);
  }
  // Functions named with a `$` are the planner's own (a quoted identifier could name one).
  const definition = name.startsWith('$') ? undefined : ctx.functions.lookup(name);
  if (definition === undefined) {
    const reason = unsupportedFunctionReason(name);
    if (reason !== undefined) throw new WeirError('UNSUPPORTED', `function ${name} is not supported: ${reason}`, { span: call.span });
    const suggestion = closestName(name, ctx.functions.names());
    throw new WeirError('UNKNOWN_FUNCTION', `function '${call.name.parts.map((p) => p.name).join('.')}' does not exist`, {
      span: call.span,
      hint: FLINK_EQUIVALENTS[name] ?? (suggestion !== undefined ? `did you mean '${suggestion}'?` : undefined),
    });
  }
  if (definition.kind === 'aggregate') {
    if (ctx.onAggregate === undefined) {
      throw new WeirError('INVALID_ARGUMENT', `aggregate function ${name} is not allowed in ${ctx.clause}`, { span: call.span });
    }
    return ctx.onAggregate(call);
  }
  if (call.distinct) throw new WeirError('INVALID_ARGUMENT', `DISTINCT is only allowed in aggregate functions, not in ${name}`, { span: call.span });
  if (call.filter !== undefined) throw new WeirError('INVALID_ARGUMENT', `FILTER is only allowed on aggregate functions, not on ${name}`, { span: call.span });
  if (name === 'JSON' && !JSON_VALUE_POSITIONS.has(call)) {
    throw new WeirError('INVALID_ARGUMENT', 'The JSON() function is currently only supported inside JSON_ARRAY() or as the VALUE param of JSON_OBJECT()', { span: call.span });
  }
  const jsonConstructor = name === 'JSON_OBJECT' || name === 'JSON_ARRAY';
  const isValue = (i: number): boolean => jsonConstructor && i > 0 && (name === 'JSON_ARRAY' || i % 2 === 0);
  const args = call.args.map((arg, i) => {
    if (arg.kind === 'table-arg') throw new WeirError('INVALID_ARGUMENT', `TABLE arguments are only allowed in table functions`, { span: arg.span });
    if (isValue(i)) JSON_VALUE_POSITIONS.add(arg);
    return bindExpr(arg, ctx);
  });
  return makeCall(name, jsonConstructor ? withJsonMask(name, args) : args, call.span, ctx);
}

/** The arguments of a call in the VALUE place of JSON_OBJECT or JSON_ARRAY, where JSON(...) is allowed. */
const JSON_VALUE_POSITIONS = new WeakSet<object>();

/**
 * JSON_OBJECT/JSON_ARRAY arguments with their first (the ON NULL mode literal) extended by a letter
 * per value, `R` for a value a JSON constructor writes, which is nested as JSON rather than quoted
 * as a string (see src/expr/functions/json-functions.ts).
 */
function withJsonMask(name: string, args: readonly ScalarExpr[]): ScalarExpr[] {
  const [mode, ...rest] = args;
  if (mode?.kind !== 'literal' || typeof mode.value !== 'string') return [...args];
  const values = name === 'JSON_OBJECT' ? rest.filter((_, i) => i % 2 === 1) : rest;
  const mask = values.map((v) => (v.kind === 'call' && ['JSON_OBJECT', 'JSON_ARRAY', 'JSON'].includes(v.name) ? 'R' : '-')).join('');
  const text = `${mode.value}:${mask}`;
  return [Exprs.literal(text, SqlTypes.char(text.length, false)), ...rest];
}

function bindCase(expr: Extract<Expr, { kind: 'case' }>, ctx: ExprBindContext): ScalarExpr {
  const operand = expr.operand === undefined ? undefined : bindExpr(expr.operand, ctx);
  const whens = expr.whens.map(({ when, alternatives = [], then }) => {
    if (operand === undefined && alternatives.length > 0) {
      throw new WeirError('INVALID_ARGUMENT', 'a list of values after WHEN needs CASE with an operand (CASE x WHEN 1, 2 THEN ...)', { span: alternatives[0]!.span });
    }
    const value = bindExpr(when, ctx);
    if (operand === undefined) return { when: value, then: bindExpr(then, ctx) };
    const tests = [when, ...alternatives].map((v, i) => makeCall('=', [operand, i === 0 ? value : bindExpr(v, ctx)], v.span, ctx));
    return { when: tests.length === 1 ? tests[0]! : makeCall('OR', tests, when.span, ctx), then: bindExpr(then, ctx) };
  });
  for (const { when } of whens) {
    if (when.type.kind !== 'BOOLEAN' && when.type.kind !== 'NULL') {
      throw new WeirError('TYPE_MISMATCH', `CASE WHEN condition must be BOOLEAN, got ${describe(when.type)}`, { span: expr.span });
    }
  }
  const elseExpr = expr.else === undefined ? undefined : bindExpr(expr.else, ctx);
  const results = [...whens.map((w) => w.then), ...(elseExpr === undefined ? [] : [elseExpr])];
  const common = leastRestrictive(results.map((r) => r.type));
  if (common === undefined) {
    throw new WeirError('TYPE_MISMATCH', `CASE branches have incompatible types: ${results.map((r) => describe(r.type)).join(', ')}`, { span: expr.span });
  }
  const type = withNullable(common, common.nullable || elseExpr === undefined);
  return {
    kind: 'case',
    whens: whens.map(({ when, then }) => ({ when, then: castTo(then, type) })),
    else: elseExpr === undefined ? Exprs.literal(null, type) : castTo(elseExpr, type),
    type,
  };
}

/** A call of a registered scalar function with implicit casts of its arguments. */
export function makeCall(name: string, args: readonly ScalarExpr[], span: SourceSpan, ctx: Pick<ExprBindContext, 'functions'>): ScalarExpr {
  const definition = ctx.functions.lookup(name);
  if (definition === undefined || definition.kind !== 'scalar') {
    throw new WeirError('UNKNOWN_FUNCTION', `function '${name}' does not exist`, { span });
  }
  let signature;
  try {
    signature = definition.resolve(
      args.map((a) => a.type),
      args.map((a) => (a.kind === 'literal' ? { value: a.value } : undefined)),
    );
  } catch (error) {
    if (error instanceof WeirError) throw error.withSpan(span);
    throw error;
  }
  const casted = args.map((arg, i) => castTo(arg, signature.args[i] ?? arg.type));
  return Exprs.call(definition.name, casted, signature.returns);
}

/** The expression converted to `type` (keeping its own nullability), or itself when it already has it. */
export function castTo(expr: ScalarExpr, type: SqlType): ScalarExpr {
  const target = withNullable(type, expr.type.nullable);
  if (sameType(expr.type, target, { ignoreNullability: true })) return expr;
  if (expr.kind === 'literal' && expr.value === null) return Exprs.literal(null, withNullable(type, true));
  return Exprs.cast(expr, target);
}

function describe(type: SqlType): string {
  if (type.kind === 'BINARY' || type.kind === 'VARBINARY') return formatType(withNullable(type, true));
  return type.kind === 'DECIMAL' ? `DECIMAL(${type.precision}, ${type.scale})` : type.kind;
}
