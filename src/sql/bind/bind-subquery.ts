/**
 * Subqueries in expressions: `EXISTS`, `IN`, `<op> ANY | SOME | ALL` and scalar subqueries. The
 * binder turns each into an `apply` node over the plan of the query that contains it (decorrelated
 * later by the rules subquery-to-semi-join and scalar-subquery-to-join):
 * - a predicate (`[NOT] EXISTS`, `x [NOT] IN`, `x <op> ANY | ALL`, under any number of NOTs) that is
 *   a conjunct of WHERE or HAVING becomes a SEMI or ANTI apply whose condition is the comparison in
 *   SQL's three-valued logic: `x IN q` keeps the rows with some `x = v` TRUE; `x NOT IN q` those
 *   with no `x = v` TRUE or NULL (so a NULL in q keeps nothing and a NULL x is kept only when q is
 *   empty); `x > ALL q` those with no `x > v` FALSE or NULL;
 * - a scalar subquery anywhere in an expression becomes a SCALAR apply appending its value.
 *
 * Correlation: the conjuncts of a subquery's WHERE that read columns of the outer query (its FROM
 * scope) are pulled out of the subquery into the apply's condition; the inner columns they read are
 * added to the subquery's select list (and to its GROUP BY when it aggregates, so that it computes
 * one group per correlation value). A scalar or aggregating subquery correlated by any other
 * condition is computed once per distinct value of the outer columns it reads instead (see
 * bindOverOuterValues). Outer columns anywhere else in a subquery are refused.
 *
 * Nesting: a subquery nested in a subquery that reads a column of the query around the outer one
 * (two or more levels out) fails binding with a DistantReferenceError naming that query's scope;
 * the subquery directly in that query catches it, makes the column one of its outer values (its
 * FROM joined with their distinct values, bindOverOuterValues) with the nested reference reading
 * that value instead, and is bound again: the nested subquery then reads a column one level out.
 *
 * LIMIT / OFFSET: a correlated subquery's `[ORDER BY ...] LIMIT n [OFFSET m]` keeps rows m+1 ..
 * m+n per correlation value, a Top-N partitioned by the correlation's inner columns (each compared
 * alone with an outer expression: `inner.c = outer.expr`), or, correlated otherwise or ordered by
 * outer columns, by the distinct outer values (bindOverOuterValues); without ORDER BY, by the
 * whole select list (see bind-order-limit.ts), so that the rows kept do not depend on arrival.
 * See withoutNeedlessLimit for where it changes nothing (EXISTS, a global aggregate).
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, timeAttributeOf, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import type { FunctionRegistry } from '../../expr/function-registry.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { planJoin } from '../../plan/logical/join-condition.js';
import { inputsOf, LogicalAggregate, LogicalApply, LogicalFilter, LogicalProject, LogicalValues, materializeTimeAttributes, withInputs, type AggregateCall, type ApplyType, type LogicalNode } from '../../plan/logical/logical-node.js';
import { crossJoinRef, type ColumnRef, type ExistsExpr, type Expr, type Identifier, type InSubqueryExpr, type QuantifiedComparison, type Query, type ScalarSubquery, type SelectItem, type SelectQuery, type TableRef } from '../parse/ast.js';
import { bindExpr, callName, containsAggregate, makeCall, visitExpr } from './bind-expr.js';
import { bindFrom, bindQuery, withoutOrder } from './bind-query.js';
import { withOnConjunctsMoved, withOnSubqueriesMoved } from './bind-on-subqueries.js';
import type { BinderContext } from './binder-context.js';
import { rowCount } from './literal-values.js';
import { Scope } from './scope.js';
import { evaluateConstantExpr, isConstantExpr } from '../../expr/constant-expr.js';

/**
 * A FROM relation a subquery is joined with, its time attributes materialized (plain TIMESTAMPs in
 * the plan and in the scope): the join is a regular one, as in Flink.
 */
export function materializeRelation(relation: { readonly plan: LogicalNode; readonly scope: Scope }): { plan: LogicalNode; scope: Scope } {
  const plan = materializeTimeAttributes(relation.plan);
  if (plan === relation.plan) return relation;
  return { plan, scope: new Scope(relation.scope.columns.map((c) => ({ ...c, type: withoutTimeAttribute(c.type) }))) };
}

/**
 * `expr` read over the apply of a subquery, which materialized the time attributes of its input:
 * its column references and its value plain TIMESTAMPs (a window property such as TUMBLE_ROWTIME
 * computed over the aggregate below the apply is no longer one either).
 */
export function materializedExpr(expr: ScalarExpr): ScalarExpr {
  return plainValue(remapInputs(expr, (ref) => (timeAttributeOf(ref.type) === undefined ? ref : Exprs.inputRef(ref.index, withoutTimeAttribute(ref.type)))));
}

/** `expr` with its own type a plain TIMESTAMP where it is a time attribute (what a regular join outputs for it). */
export function plainValue(expr: ScalarExpr): ScalarExpr {
  return timeAttributeOf(expr.type) === undefined ? expr : ({ ...expr, type: withoutTimeAttribute(expr.type) } as ScalarExpr);
}

/** A predicate over a subquery, with the NOTs above it folded into `negated`. */
export interface SubqueryPredicate {
  readonly core: InSubqueryExpr | ExistsExpr | QuantifiedComparison;
  readonly negated: boolean;
  readonly span: SourceSpan;
}

/** The subquery predicate `expr` is (under any number of NOTs), or undefined. */
export function subqueryPredicate(expr: Expr): SubqueryPredicate | undefined {
  let negated = false;
  let current = expr;
  while (current.kind === 'unary' && current.op === 'NOT') {
    negated = !negated;
    current = current.operand;
  }
  if (current.kind === 'exists' || current.kind === 'in-subquery' || current.kind === 'quantified') return { core: current, negated, span: expr.span };
  const rowEquality = negated ? undefined : rowEqualsSubquery(current);
  return rowEquality === undefined ? undefined : { core: rowEquality, negated, span: expr.span };
}

/**
 * `(a, b) = (SELECT x, y ...)` as a condition is `(a, b) IN (SELECT x, y ...)`: TRUE exactly when
 * the subquery's row equals the row (a subquery of more than one row is an error in PostgreSQL; here
 * any of its rows may match), and NULL or FALSE, which a condition treats alike, otherwise. Not under
 * NOT, where NULL (no row) and FALSE differ. Undefined for any other expression.
 */
function rowEqualsSubquery(expr: Expr): InSubqueryExpr | undefined {
  if (expr.kind !== 'binary' || expr.op !== '=') return undefined;
  const [row, subquery] = expr.right.kind === 'scalar-subquery' ? [expr.left, expr.right] : [expr.right, expr.left];
  if (subquery.kind !== 'scalar-subquery' || rowArity(row) === 1) return undefined;
  return { kind: 'in-subquery', span: expr.span, expr: row, query: subquery.query, negated: false };
}

/** True when `expr` has a subquery outside any nested subquery. */
export function containsSubquery(expr: Expr | undefined): boolean {
  if (expr === undefined) return false;
  let found = false;
  visitExpr(expr, (e) => {
    if (e.kind === 'exists' || e.kind === 'in-subquery' || e.kind === 'quantified' || e.kind === 'scalar-subquery') found = true;
  });
  return found;
}

/** The conjuncts of an AND tree as written. */
export function astConjuncts(expr: Expr): Expr[] {
  return expr.kind === 'binary' && expr.op === 'AND' ? [...astConjuncts(expr.left), ...astConjuncts(expr.right)] : [expr];
}

/** The AND of conjuncts as written (the inverse of {@link astConjuncts}), or undefined when there are none. */
export function andOf(conjuncts: readonly Expr[]): Expr | undefined {
  if (conjuncts.length === 0) return undefined;
  return conjuncts.reduce((a, b) => ({ kind: 'binary', op: 'AND', left: a, right: b, span: { start: a.span.start, end: b.span.end } }));
}

/** A subquery bound without its correlation. */
export interface BoundSubquery {
  /** Uncorrelated: the select list's columns, then the inner columns the correlation reads. */
  readonly plan: LogicalNode;
  /** Columns of the select list. */
  readonly width: number;
  /** The pulled-out conjuncts, over the outer scope's columns then the plan's. */
  readonly correlation: readonly ScalarExpr[];
  /** At most one row per correlation value (an aggregate without GROUP BY, or no FROM). */
  readonly singleRow: boolean;
  /** The value of the first column over no rows when it is not NULL (COUNT's 0). */
  readonly emptyValue: ScalarExpr | null;
  /** An aggregate without GROUP BY: exactly one row per correlation value in SQL. */
  readonly globalAggregate: boolean;
  /** How the subquery is named in plans and errors. */
  readonly sql: string;
  /** Correlated by non-equalities: the placeholder of the distinct outer values in `plan` (see {@link withOuterValues}). */
  readonly outerValues?: LogicalValues;
}

/** How a subquery is used: its existence alone, a value compared, or a scalar value. */
type SubqueryUse = 'exists' | 'compared' | 'scalar';

/**
 * How the outer scope's columns (the first `width` columns a correlation reads, the subquery's
 * following) lie in the plan a subquery is attached to: the same indexes (a FROM's plan, with
 * columns appended), or, over an aggregate, what `toPlan` rewrites a correlation conjunct into,
 * given the plan's width (outer columns as grouping keys, the subquery's columns shifted).
 */
export interface OuterColumns {
  readonly width: number;
  readonly toPlan?: (conjunct: ScalarExpr, planWidth: number) => ScalarExpr;
}

/** A prepared scalar subquery: bound, with the type of the value it appends. */
export interface PreparedScalar {
  readonly bound: BoundSubquery;
  readonly type: SqlType;
}

/** Binds a scalar subquery (correlated to `outer` when given). */
export function prepareScalar(expr: ScalarSubquery, outer: Scope | undefined, ctx: BinderContext): PreparedScalar {
  const bound = bindSubquery(expr.query, outer, ctx, 'scalar', expr.span);
  requireOneColumn(bound, 'a scalar subquery', expr.span);
  const value = bound.plan.schema[0]!.type;
  const type = bound.emptyValue !== null && !value.nullable ? value : withNullable(value, true);
  return { bound, type };
}

/** `plan` with the SCALAR apply of a prepared subquery; its value is the last column. */
export function attachScalar(plan: LogicalNode, prepared: PreparedScalar, outer: OuterColumns): LogicalNode {
  const { type } = prepared;
  const bound = prepared.bound.singleRow ? prepared.bound : withSingleValue(prepared.bound, outer.width);
  const correlation = shiftCorrelation(bound.correlation, outer, plan.schema.length);
  return LogicalApply.create({
    applyType: 'SCALAR',
    input: plan,
    subquery: withOuterValues(bound, plan, correlation),
    condition: conjunction(correlation),
    // The value leads a subquery's columns; SINGLE_VALUE puts it after the correlation columns.
    valueIndex: prepared.bound.singleRow ? 0 : bound.plan.schema.length - 1,
    emptyValue: bound.emptyValue,
    sql: bound.sql,
    valueType: type,
  });
}

/** A prepared subquery predicate: the bound subquery, or for a one-row aggregate the scalar it compares with. */
export type PreparedPredicate =
  | { readonly kind: 'rows'; readonly predicate: SubqueryPredicate; readonly bound: BoundSubquery }
  | { readonly kind: 'scalar'; readonly predicate: SubqueryPredicate; readonly scalar: PreparedScalar };

/** Binds the subquery of a predicate (correlated to `outer` when given). */
export function preparePredicate(predicate: SubqueryPredicate, outer: Scope | undefined, ctx: BinderContext): PreparedPredicate {
  const { core } = predicate;
  const use: SubqueryUse = core.kind === 'exists' ? 'exists' : 'compared';
  const bound = bindSubquery(core.query, outer, ctx, use, core.span);
  const arity = core.kind === 'in-subquery' ? rowArity(core.expr) : 1;
  if (use === 'compared') requireColumns(bound, arity, core.kind === 'quantified' ? `${core.op} ${core.quantifier} (subquery)` : 'IN (subquery)', core.span);
  // A subquery that aggregates without GROUP BY has exactly one row (per correlation value): ANY
  // and ALL over it are the comparison with its value, and EXISTS is TRUE.
  if (bound.globalAggregate && use === 'compared' && arity === 1) {
    const value = bound.plan.schema[0]!.type;
    return { kind: 'scalar', predicate, scalar: { bound: { ...bound, singleRow: true }, type: bound.emptyValue !== null && !value.nullable ? value : withNullable(value, true) } };
  }
  return { kind: 'rows', predicate, bound };
}

/**
 * Applies a prepared predicate to `plan`: the plan (with a SEMI/ANTI apply, or with the scalar it
 * compares with appended) and a condition to filter it by (over the returned plan), if any.
 * `value` is the left operand of IN / ANY / ALL, over `plan`'s columns.
 */
export function attachPredicate(plan: LogicalNode, prepared: PreparedPredicate, value: ScalarExpr | undefined, outer: OuterColumns, functions: FunctionRegistry): { plan: LogicalNode; filter?: ScalarExpr } {
  const { core, negated, span } = prepared.predicate;
  if (prepared.kind === 'scalar') {
    const withValue = attachScalar(plan, prepared.scalar, outer);
    const v = Exprs.inputRef(withValue.schema.length - 1, prepared.scalar.type);
    const { op, inverted } = comparisonOf(core);
    const comparison = makeCall(op, [value!, v], span, { functions });
    return { plan: withValue, filter: negated !== inverted ? makeCall('NOT', [comparison], span, { functions }) : comparison };
  }
  const { bound } = prepared;
  if (bound.globalAggregate && core.kind === 'exists') {
    // EXISTS over one row per correlation value is TRUE, NOT EXISTS FALSE.
    return { plan, filter: Exprs.literal(negated === core.negated, SqlTypes.boolean(false)) };
  }
  const width = plan.schema.length;
  const conditions = shiftCorrelation(bound.correlation, outer, width);
  let applyType: ApplyType;
  if (core.kind === 'exists') {
    applyType = negated !== core.negated ? 'ANTI' : 'SEMI';
  } else {
    const v = Exprs.inputRef(width, bound.plan.schema[0]!.type);
    const { op, quantifier, inverted } = comparisonOf(core);
    const not = negated !== inverted;
    const comparison = bound.width > 1 ? rowsEqual(value!, bound, width, span, functions) : makeCall(op, [value!, v], span, { functions });
    const strict = !comparison.type.nullable;
    const test = (name: 'IS NOT FALSE' | 'IS NOT TRUE' | 'IS FALSE'): ScalarExpr => makeCall(name, [comparison], span, { functions });
    const negatedComparison = (): ScalarExpr => makeCall(NEGATED[op], [value!, v], span, { functions });
    if (quantifier === 'ANY') {
      // x op ANY q: some v with x op v TRUE; NOT: none with it TRUE or NULL.
      applyType = not ? 'ANTI' : 'SEMI';
      conditions.push(!not ? comparison : strict ? comparison : test('IS NOT FALSE'));
    } else {
      // x op ALL q: no v with x op v FALSE or NULL; NOT: some v with it FALSE.
      applyType = not ? 'SEMI' : 'ANTI';
      conditions.push(strict ? negatedComparison() : test(not ? 'IS FALSE' : 'IS NOT TRUE'));
    }
  }
  return {
    plan: LogicalApply.create({
      applyType,
      input: plan,
      subquery: withOuterValues(bound, plan, conditions),
      condition: conjunction(conditions),
      valueIndex: 0,
      emptyValue: null,
      sql: bound.sql,
    }),
  };
}

/**
 * A subquery of one value column that may return several rows, as one row per correlation value:
 * `SINGLE_VALUE(value, name)` grouped by its correlation columns, which fails at runtime when a
 * group has more than one row. Output: the correlation columns, then the value (the last column).
 */
function withSingleValue(bound: BoundSubquery, outerWidth: number): BoundSubquery {
  const input = bound.plan;
  const corCount = input.schema.length - 1;
  const valueType = input.schema[0]!.type;
  const name = Exprs.literal(bound.sql, SqlTypes.string(false));
  const preExprs = [...input.schema.slice(1).map((f, i) => Exprs.inputRef(i + 1, f.type)), Exprs.inputRef(0, valueType), name];
  const preSchema: Field[] = [...input.schema.slice(1), { name: '$value', type: valueType }, { name: '$subquery', type: name.type }];
  const pre: LogicalNode = LogicalProject.create({ input, exprs: preExprs, names: preSchema.map((f) => f.name) });
  const type = withNullable(valueType, true);
  const call = { function: 'SINGLE_VALUE', args: [corCount, corCount + 1], argTypes: [valueType, name.type], distinct: false, filter: null, type, name: '$value' };
  const plan: LogicalNode = LogicalAggregate.create({ input: pre, keys: input.schema.slice(1).map((_, i) => i), calls: [call] });
  const correlation = bound.correlation.map((c) =>
    remapInputs(c, (r) => {
      if (r.index < outerWidth) return r;
      const column = r.index - outerWidth;
      return Exprs.inputRef(outerWidth + (column === 0 ? corCount : column - 1), r.type);
    }),
  );
  return { ...bound, plan, correlation, singleRow: true };
}

/** The comparison of IN / ANY / ALL; `inverted` for NOT IN written as such. */
function comparisonOf(core: InSubqueryExpr | ExistsExpr | QuantifiedComparison): { op: QuantifiedComparison['op']; quantifier: 'ANY' | 'ALL'; inverted: boolean } {
  if (core.kind === 'in-subquery') return { op: '=', quantifier: 'ANY', inverted: core.negated };
  if (core.kind === 'quantified') return { op: core.op, quantifier: core.quantifier, inverted: false };
  throw new WeirError('INTERNAL_ERROR', 'EXISTS has no comparison');
}

const NEGATED: Readonly<Record<QuantifiedComparison['op'], QuantifiedComparison['op']>> = { '=': '<>', '<>': '=', '<': '>=', '>=': '<', '>': '<=', '<=': '>' };

/** Correlation conjuncts re-indexed from (outer scope ++ subquery) to (plan of `width` columns ++ subquery). */
function shiftCorrelation(correlation: readonly ScalarExpr[], outer: OuterColumns, width: number): ScalarExpr[] {
  if (outer.toPlan !== undefined) return correlation.map((c) => outer.toPlan!(c, width));
  return correlation.map((c) => remapInputs(c, (r) => (r.index < outer.width ? r : Exprs.inputRef(r.index - outer.width + width, r.type))));
}

/** The AND of the conjuncts (nullable when one is), or null for none. */
export function conjunction(conjuncts: readonly ScalarExpr[]): ScalarExpr | null {
  return conjuncts.length === 0 ? null : conjuncts.reduce((a, b) => Exprs.call('AND', [a, b], SqlTypes.boolean(a.type.nullable || b.type.nullable)));
}

/** The number of values of an IN's left operand: a row constructor's `(a, b)` fields, else 1. */
function rowArity(expr: Expr): number {
  return expr.kind === 'call' && callName(expr) === 'ROW' && expr.args.length > 1 ? expr.args.length : 1;
}

function requireColumns(bound: BoundSubquery, arity: number, what: string, span: SourceSpan): void {
  if (arity === 1) {
    requireOneColumn(bound, what, span);
    return;
  }
  if (bound.width !== arity) {
    throw new WeirError('INVALID_ARGUMENT', `${what} must return as many columns as the row it is compared with (${arity}), but ${bound.sql} returns ${bound.width}`, { span, hint: 'select one column in the subquery for each value of the row' });
  }
}

/**
 * `(a, b) = (v1, v2)` for a row IN: the conjunction of the fields' equalities, so that it is NULL
 * when no field differs and some is NULL, as SQL's row comparison. `row` is the bound ROW call;
 * the subquery's columns follow the plan's `width` columns.
 */
function rowsEqual(row: ScalarExpr, bound: BoundSubquery, width: number, span: SourceSpan, functions: FunctionRegistry): ScalarExpr {
  if (row.kind !== 'call' || row.name !== 'ROW' || row.args.length !== bound.width) {
    throw new WeirError('INTERNAL_ERROR', `a row IN compares a row of ${bound.width} values, not ${row.kind === 'call' ? row.name : row.kind}`, { span });
  }
  const equalities = row.args.map((field, i) => makeCall('=', [field, Exprs.inputRef(width + i, bound.plan.schema[i]!.type)], span, { functions }));
  return conjunction(equalities)!;
}

function requireOneColumn(bound: BoundSubquery, what: string, span: SourceSpan): void {
  if (bound.width !== 1) {
    throw new WeirError('INVALID_ARGUMENT', `${what} must return one column, but ${bound.sql} returns ${bound.width}`, { span, hint: 'select exactly one column in the subquery' });
  }
}

/** How a subquery is named in plans and errors: where it starts. */
function subqueryName(span: SourceSpan): string {
  return `(subquery at line ${span.start.line}, column ${span.start.column})`;
}

/** True when the select block aggregates (aggregate calls, GROUP BY or HAVING). */
function isGrouped(query: SelectQuery, ctx: BinderContext): boolean {
  return query.groupBy.length > 0 || query.having !== undefined || query.items.some((i) => i.kind === 'select-expr' && containsAggregate(i.expr, ctx.functions));
}

/** The column references of an expression (not inside nested subqueries). */
function columnRefs(expr: Expr): ColumnRef[] {
  const refs: ColumnRef[] = [];
  visitExpr(expr, (e) => {
    if (e.kind === 'column-ref') refs.push(e);
  });
  return refs;
}

/** Whether a name resolves in a scope (other errors, such as an ambiguous name, count as resolving: binding reports them). */
function resolves(scope: Scope, ref: ColumnRef): boolean {
  try {
    scope.resolve(ref.parts, ref.span);
    return true;
  } catch (error) {
    if (error instanceof WeirError && (error.code === 'UNKNOWN_COLUMN' || error.code === 'UNKNOWN_TABLE')) return false;
    return true;
  }
}

/**
 * Binds a subquery, pulling its correlated WHERE conjuncts out. An ORDER BY without LIMIT or
 * OFFSET orders nothing there and is dropped (as Calcite does in Flink, and PostgreSQL ignores it).
 */
function bindSubquery(written: Query, outer: Scope | undefined, ctx: BinderContext, use: SubqueryUse, span: SourceSpan, lifted: readonly ColumnRef[] = []): BoundSubquery {
  try {
    return bindSubqueryOnce(written, outer, ctx, use, span, lifted);
  } catch (error) {
    // A subquery nested in this one read a column of the query around this one: that column
    // becomes an outer value of this subquery, which the nested one reads one level out.
    if (!(error instanceof DistantReferenceError) || error.scope !== outer || withoutOrder(written).kind !== 'select' || lifted.some((ref) => sameRef(ref, error.ref))) throw error;
    return bindSubquery(written, outer, ctx, use, span, [...lifted, error.ref]);
  }
}

/**
 * {@link bindSubquery} once; `lifted` are the references of subqueries nested in this one to
 * columns of `outer` (see bindOverOuterValues).
 */
function bindSubqueryOnce(written: Query, outer: Scope | undefined, ctx: BinderContext, use: SubqueryUse, span: SourceSpan, lifted: readonly ColumnRef[]): BoundSubquery {
  const sql = subqueryName(span);
  const unordered = withoutOrder(written);
  if (unordered.kind !== 'select') {
    const relation = bindRefusingOuter(unordered, outer, ctx, sql);
    return { plan: relation.plan, width: relation.schema.length, correlation: [], singleRow: false, emptyValue: null, globalAggregate: false, sql };
  }
  // (Subqueries in its joins' ON become WHERE conditions first, where the correlation is pulled out: see bind-on-subqueries.ts.)
  const query = withOnSubqueriesMoved(unordered);
  const grouped = isGrouped(query, ctx);
  const globalAggregate = grouped && query.groupBy.length === 0;
  let innerScope: Scope;
  try {
    innerScope = query.from === undefined ? new Scope([]) : bindFrom(query.from, ctx).scope;
  } catch (error) {
    // (An ON reading a query further out moves too: in the WHERE, that column is lifted as any other.)
    const reachable = outer === undefined ? undefined : ctx.outerScopes.reduce((scope, further) => scope.concat(further), outer);
    const hoisted = reachable === undefined ? undefined : withOuterJoinConditionInWhere(query, error, reachable);
    if (hoisted !== undefined) return bindSubqueryOnce(hoisted, outer, ctx, use, span, lifted);
    throw innerFromError(query.from!, error, reachable, sql);
  }
  const isOuter = (ref: ColumnRef): boolean => outer !== undefined && !resolves(innerScope, ref) && resolves(outer, ref);
  const conjuncts = query.where === undefined ? [] : astConjuncts(query.where);
  refuseDistantReferences(query, innerScope, outer, ctx.outerScopes, sql);
  const correlated = conjuncts.filter((c) => columnRefs(c).some(isOuter));
  // ORDER BY ... LIMIT may order by outer columns too (`ORDER BY ABS(u.v - t.x) LIMIT 1`).
  const readsOuterInOrder = (query.limit !== undefined || query.offset !== undefined) && query.orderBy.some((item) => columnRefs(item.expr).some((ref) => isOuterInOrder(query, ref, isOuter)));
  if (correlated.length === 0 && !readsOuterInOrder && lifted.length === 0) {
    const relation = bindRefusingOuter(query, outer, ctx, sql);
    return { plan: relation.plan, width: relation.schema.length, correlation: [], singleRow: globalAggregate || query.from === undefined, emptyValue: globalAggregate && query.having === undefined ? emptyValueOf(relation.plan, ctx) : null, globalAggregate, sql };
  }
  if (query.limit !== undefined || query.offset !== undefined) {
    const limited = withoutNeedlessLimit(query, use, globalAggregate, sql);
    if (limited !== query) return bindSubqueryOnce(limited, outer, ctx, use, span, lifted);
  }
  if (globalAggregate && query.having !== undefined) {
    // (One whose HAVING reads an aggregate is bound as scalar subqueries: see withoutGlobalHaving in bind-expr.ts.)
    throw new WeirError('UNSUPPORTED', `a HAVING that reads no aggregate is not supported in a correlated subquery that aggregates without GROUP BY ${sql}`, { span, hint: 'move the condition out of the subquery: compare its value in the outer WHERE' });
  }
  // An aggregating or scalar subquery is computed once per correlation value. Correlated by
  // equalities of an inner column with an outer expression, the inner columns are its grouping
  // keys; by any other condition, it is computed once per distinct value of the outer columns.
  // With LIMIT / OFFSET, the rows are limited per value of the inner columns the correlation
  // reads (a Top-N partitioned by them): each must be compared alone with an outer expression.
  const limited = query.limit !== undefined || query.offset !== undefined;
  const needsEquality = grouped || use === 'scalar' || limited;
  const isEquality = (conjunct: Expr): boolean =>
    conjunct.kind === 'binary' && conjunct.op === '=' && [conjunct.left, conjunct.right].some((side, i) => {
      const other = i === 0 ? conjunct.right : conjunct.left;
      const innerSide = grouped || limited ? side.kind === 'column-ref' && !isOuter(side) : columnRefs(side).length > 0 && !columnRefs(side).some(isOuter);
      return innerSide && columnRefs(other).length > 0 && columnRefs(other).every(isOuter);
    });
  // (A correlated conjunct with a subquery in it stays in the WHERE, which binds subqueries, over the outer values.)
  if (readsOuterInOrder || lifted.length > 0 || correlated.some(containsSubquery) || (needsEquality && !correlated.every(isEquality))) return withLimitedRows(bindOverOuterValues(query, conjuncts, correlated, isOuter, grouped, outer!, innerScope, ctx, sql, lifted), query);
  // The inner columns the correlated conjuncts read become extra select items ($cor0, ...).
  const corItems: ColumnRef[] = [];
  const corName = (ref: ColumnRef): string => {
    const key = ref.parts.map((p) => p.name.toLowerCase()).join('.');
    let index = corItems.findIndex((c) => c.parts.map((p) => p.name.toLowerCase()).join('.') === key);
    if (index < 0) {
      corItems.push(ref);
      index = corItems.length - 1;
    }
    return `$cor${index}`;
  };
  const rewritten = correlated.map((c) => mapColumnRefs(c, (ref) => (isOuter(ref) ? ref : { kind: 'column-ref', span: ref.span, parts: [identifier('$sq', ref.span), identifier(corName(ref), ref.span)] })));
  // (Limited per correlation value, a row whose inner column is NULL meets no outer row: it is
  // left out before the Top-N rather than kept in a partition of its own.)
  const notNull = limited ? corItems.map((ref): Expr => ({ kind: 'is', span: ref.span, expr: ref, test: 'NULL', negated: true })) : [];
  const local = [...conjuncts.filter((c) => !correlated.includes(c)), ...notNull];
  const ident = (name: string, s: SourceSpan): Identifier => identifier(name, s);
  const extraItems: SelectItem[] = corItems.map((ref, i) => ({ kind: 'select-expr', span: ref.span, expr: ref, alias: ident(`$cor${i}`, ref.span) }));
  const keepItems = use !== 'exists' || grouped;
  const items: SelectItem[] = [...(keepItems ? query.items : []), ...extraItems];
  const modified: SelectQuery = {
    ...query,
    items,
    where: andOf(local),
    groupBy: grouped ? [...query.groupBy, ...corItems.map((ref) => ({ kind: 'group-expr' as const, span: ref.span, expr: ref }))] : query.groupBy,
    ...(limited ? { limitPartition: corItems.map((_, i) => `$cor${i}`) } : {}),
  };
  const relation = bindRefusingOuter(modified, outer, ctx, sql);
  const width = relation.schema.length - corItems.length;
  const subScope = new Scope(relation.schema.map((f, i) => ({ qualifier: '$sq', name: i < width ? `$v${i}` : f.name, type: f.type })));
  const scope = outer!.concat(subScope);
  const correlation = rewritten.map((c) => bindExpr(c, { scope, functions: ctx.functions, clause: 'WHERE' }));
  return withLimitedRows({ plan: relation.plan, width, correlation, singleRow: globalAggregate, emptyValue: globalAggregate ? emptyValueOf(relation.plan, ctx) : null, globalAggregate, sql }, query);
}

/**
 * A correlated subquery's LIMIT / OFFSET where it changes nothing, dropped (the query returned as
 * it is otherwise): EXISTS with LIMIT n > 0 and no OFFSET is EXISTS without them (ORDER BY too),
 * and a subquery that aggregates without GROUP BY, one row per correlation value, is unchanged
 * by LIMIT n > 0 without OFFSET (LIMIT 0 or an OFFSET over it is refused). EXISTS otherwise drops
 * its ORDER BY, which does not change whether rows are left, and OFFSET m alone is LIMIT 1 OFFSET m.
 */
function withoutNeedlessLimit(query: SelectQuery, use: SubqueryUse, globalAggregate: boolean, sql: string): SelectQuery {
  const count = query.limit === undefined ? undefined : rowCount(query.limit, 'LIMIT');
  const skip = query.offset === undefined ? 0 : rowCount(query.offset, 'OFFSET');
  const unlimited: SelectQuery = { ...query, orderBy: [], limit: undefined, offset: undefined };
  if (globalAggregate) {
    if (count !== undefined && count > 0 && skip === 0) return unlimited;
    const clause = count === 0 ? query.limit! : query.offset ?? query.limit!;
    throw new WeirError('UNSUPPORTED', `${count === 0 ? 'LIMIT 0' : 'OFFSET'} is not supported in a correlated subquery that aggregates without GROUP BY ${sql} (its one row per outer row would be dropped)`, {
      span: clause.span,
      hint: 'drop the LIMIT / OFFSET, or write the condition it stands for in the outer query',
    });
  }
  if (use !== 'exists') return query;
  if (count !== undefined && count > 0 && skip === 0) return unlimited;
  // Whether rows exist past an OFFSET does not depend on their order, nor on how many are taken.
  if (count === undefined) return { ...query, orderBy: [], limit: { kind: 'literal', span: query.offset!.span, type: 'number', text: '1' } };
  return query.orderBy.length > 0 ? { ...query, orderBy: [] } : query;
}

/** A bound subquery with the LIMIT of `query` (if any): a scalar one of LIMIT 0 or 1 has at most one row per correlation value. */
function withLimitedRows(bound: BoundSubquery, query: SelectQuery): BoundSubquery {
  const count = query.limit === undefined ? undefined : rowCount(query.limit, 'LIMIT');
  return count !== undefined && count <= 1 && !bound.singleRow ? { ...bound, singleRow: true } : bound;
}

/**
 * The name of the distinct outer values a subquery correlated by non-equalities is joined with,
 * for a subquery `depth` levels in (0 directly in a query): each level has its own, so that a
 * subquery nested in one reads the values of the right one.
 */
function outerValuesName(depth: number): string {
  return depth === 0 ? '$outer' : `$outer${depth}`;
}

/**
 * A subquery correlated by conditions other than equalities of an inner column with an outer
 * expression, computed once per distinct value of the outer columns it reads (Calcite's value
 * generator): its FROM is joined with the relation `$outer` of those values on its whole WHERE
 * (the outer columns read as `$outer`'s), its select list gets `$outer`'s columns (and its GROUP
 * BY, when it aggregates), and the correlation is `outer.x IS NOT DISTINCT FROM $cor<i>` for each
 * outer column. `$outer` is bound as an empty placeholder: {@link withOuterValues} replaces it with
 * the distinct values of the plan the subquery is attached to. An outer row whose values meet no
 * inner row has no group: it gets the value over no rows (COUNT's 0), as in the equality case.
 *
 * `lifted` are references to outer columns made by subqueries nested in this one (at any depth):
 * they read `$outer`'s columns instead, which are columns of this subquery's FROM, one level out
 * of the subquery directly in it (and lifted again by that one for deeper ones). So the nested
 * subquery sees, for each outer value, exactly the value the outer row has, NULL included.
 */
function bindOverOuterValues(query: SelectQuery, conjuncts: readonly Expr[], correlated: readonly Expr[], isOuter: (ref: ColumnRef) => boolean, grouped: boolean, outer: Scope, inner: Scope, ctx: BinderContext, sql: string, lifted: readonly ColumnRef[]): BoundSubquery {
  const OUTER_VALUES = outerValuesName(ctx.outerScopes.length);
  // A bare `*` names the columns of the subquery's own FROM (`inner`), not `$outer`'s joined to it.
  const items = query.items.flatMap((item): SelectItem[] => (item.kind === 'select-star' && item.qualifier.length === 0 ? starItems(inner, item.span) : [item]));
  const outerRefs: ColumnRef[] = [];
  const key = (ref: ColumnRef): string => ref.parts.map((p) => p.name.toLowerCase()).join('.');
  const valueName = (ref: ColumnRef): string => {
    let index = outerRefs.findIndex((r) => key(r) === key(ref));
    if (index < 0) {
      outerRefs.push(ref);
      index = outerRefs.length - 1;
    }
    return `$k${index}`;
  };
  const toValue = (ref: ColumnRef): ColumnRef => ({ kind: 'column-ref', span: ref.span, parts: [identifier(OUTER_VALUES, ref.span), identifier(valueName(ref), ref.span)] });
  const nested = <T>(node: T): T => (lifted.length === 0 ? node : mapLiftedRefs(node, lifted, toValue));
  const where = conjuncts.map((c) => nested(correlated.includes(c) ? mapColumnRefs(c, (ref) => (isOuter(ref) ? toValue(ref) : ref)) : c));
  // (An ORDER BY ... LIMIT that reads outer columns orders each outer value's rows by their values.)
  const orderBy = nested(query.limit === undefined && query.offset === undefined ? query.orderBy : query.orderBy.map((item) => ({ ...item, expr: mapColumnRefs(item.expr, (ref) => (isOuterInOrder(query, ref, isOuter) ? toValue(ref) : ref)) })));
  const [selected, innerFrom, having, groupBy] = [nested(items), nested(query.from), nested(query.having), nested(query.groupBy)];
  const outerExprs = outerRefs.map((ref) => bindExpr(ref, { scope: outer, functions: ctx.functions, clause: 'WHERE' }));
  const placeholder = LogicalValues.create({ rows: [], columns: outerExprs.map((e, i) => ({ name: `$k${i}`, type: withoutTimeAttribute(e.type) })) });
  const span = query.span;
  const valueRefs: ColumnRef[] = outerRefs.map((ref, i) => ({ kind: 'column-ref', span: ref.span, parts: [identifier(OUTER_VALUES, ref.span), identifier(`$k${i}`, ref.span)] }));
  const from: TableRef = { kind: 'named-table', span, name: { kind: 'qualified-name', span, parts: [identifier(OUTER_VALUES, span)] } };
  const modified: SelectQuery = {
    ...query,
    items: [...selected, ...valueRefs.map((ref, i): SelectItem => ({ kind: 'select-expr', span: ref.span, expr: ref, alias: identifier(`$cor${i}`, ref.span) }))],
    from: innerFrom === undefined ? from : crossJoinRef(from, innerFrom, span),
    having,
    where: andOf(where),
    orderBy,
    groupBy: grouped ? [...groupBy, ...valueRefs.map((ref) => ({ kind: 'group-expr' as const, span: ref.span, expr: ref }))] : query.groupBy,
    ...(query.limit !== undefined || query.offset !== undefined ? { limitPartition: valueRefs.map((_, i) => `$cor${i}`) } : {}),
  };
  const relation = bindRefusingOuter(modified, outer, ctx.withBoundRelation(OUTER_VALUES, { plan: placeholder, schema: placeholder.schema }), sql);
  const width = relation.schema.length - outerRefs.length;
  const correlation = outerExprs.map((e, i) => Exprs.call('IS NOT DISTINCT FROM', [e, Exprs.inputRef(outer.columns.length + width + i, relation.schema[width + i]!.type)], SqlTypes.boolean(false)));
  const globalAggregate = grouped && query.groupBy.length === 0;
  return { plan: relation.plan, width, correlation, singleRow: globalAggregate, emptyValue: globalAggregate ? emptyValueOf(relation.plan, ctx) : null, globalAggregate, sql, outerValues: placeholder };
}

/** Whether an ORDER BY item's column reference reads the outer query (not a column of the subquery's FROM, nor an alias of its select list). */
function isOuterInOrder(query: SelectQuery, ref: ColumnRef, isOuter: (ref: ColumnRef) => boolean): boolean {
  if (!isOuter(ref)) return false;
  const name = ref.parts.length === 1 ? ref.parts[0]!.name.toLowerCase() : undefined;
  return name === undefined || !query.items.some((item) => item.kind === 'select-expr' && item.alias?.name.toLowerCase() === name);
}

/** `*` over a FROM's scope as the list of its columns, each qualified by its relation when it has one (`t.c AS c`). */
function starItems(scope: Scope, span: SourceSpan): SelectItem[] {
  return scope.columns
    .filter((c) => c.merged !== true)
    .map((c): SelectItem => {
      const parts = c.qualifier === undefined ? [identifier(c.name, span)] : [identifier(c.qualifier, span), identifier(c.name, span)];
      return { kind: 'select-expr', span, expr: { kind: 'column-ref', span, parts }, alias: identifier(c.name, span) };
    });
}

/**
 * The subquery's plan with its `$outer` placeholder replaced by the distinct values of the outer
 * columns it reads, computed from `plan` (the plan it is attached to); `correlation` is the bound
 * correlation over `plan`'s columns then the subquery's, whose i-th conjunct compares outer value i.
 */
function withOuterValues(bound: BoundSubquery, plan: LogicalNode, correlation: readonly ScalarExpr[]): LogicalNode {
  const placeholder = bound.outerValues;
  if (placeholder === undefined) return bound.plan;
  const exprs = placeholder.schema.map((f, i) => {
    const conjunct = correlation[i]!;
    if (conjunct.kind !== 'call' || conjunct.name !== 'IS NOT DISTINCT FROM') throw new WeirError('INTERNAL_ERROR', `the correlation of ${bound.sql} does not compare outer value ${i}`);
    const value = conjunct.args[0]!;
    return value.type.kind === f.type.kind && JSON.stringify(value.type) === JSON.stringify(f.type) ? value : Exprs.cast(value, f.type);
  });
  const projected: LogicalNode = LogicalProject.create({ input: plan, exprs, names: placeholder.schema.map((f) => f.name) });
  const values: LogicalNode = LogicalAggregate.create({ input: projected, keys: exprs.map((_, i) => i), calls: [] });
  const replace = (node: LogicalNode): LogicalNode => (node === placeholder ? values : withInputs(node, inputsOf(node).map(replace)));
  return replace(bound.plan);
}

/**
 * A subquery read a column of a query further out than the one directly around it: the subquery
 * around the scope that has the column (`scope`) makes it one of its outer values (see
 * bindSubquery); an error for the user when none can.
 */
class DistantReferenceError extends WeirError {
  constructor(
    readonly ref: ColumnRef,
    readonly scope: Scope,
    message: string,
    hint: string,
  ) {
    super('UNSUPPORTED', message, { span: ref.span, hint });
  }
}

/** Whether two column references are the same one of the query's text (a copy of it included). */
function sameRef(a: ColumnRef, b: ColumnRef): boolean {
  const name = (ref: ColumnRef): string => ref.parts.map((p) => p.name.toLowerCase()).join('.');
  return a.span.start.offset === b.span.start.offset && a.span.end.offset === b.span.end.offset && name(a) === name(b);
}

/** A copy of an AST node with the `lifted` column references replaced, in nested subqueries too. */
function mapLiftedRefs<T>(node: T, lifted: readonly ColumnRef[], map: (ref: ColumnRef) => ColumnRef): T {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    if (record.kind === 'column-ref') {
      const ref = value as ColumnRef;
      return lifted.some((l) => sameRef(l, ref)) ? map(ref) : ref;
    }
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) out[key] = key === 'span' ? child : walk(child);
    return out;
  };
  return walk(node) as T;
}

/**
 * Refuses a column of a query further out than the one directly around the subquery (a subquery
 * around this one makes it its own outer value, see bindSubquery, and binds this one again).
 */
function refuseDistantReferences(query: SelectQuery, inner: Scope, outer: Scope | undefined, enclosing: readonly Scope[], sql: string): void {
  if (enclosing.length === 0) return;
  const exprs: Expr[] = [
    ...(query.where === undefined ? [] : [query.where]),
    ...query.items.flatMap((i) => (i.kind === 'select-expr' ? [i.expr] : [])),
    ...(query.having === undefined ? [] : [query.having]),
  ];
  // (An ORDER BY is kept only with LIMIT / OFFSET, and may read the outer query there; not an alias of the select list.)
  const alias = (ref: ColumnRef): boolean => ref.parts.length === 1 && query.items.some((item) => item.kind === 'select-expr' && item.alias?.name.toLowerCase() === ref.parts[0]!.name.toLowerCase());
  const ordered = query.orderBy.flatMap((item) => columnRefs(item.expr)).filter((ref) => !alias(ref));
  for (const ref of [...exprs.flatMap(columnRefs), ...ordered]) {
    if (resolves(inner, ref) || (outer !== undefined && resolves(outer, ref))) continue;
    const scope = enclosing.find((s) => resolves(s, ref));
    if (scope !== undefined) {
      throw new DistantReferenceError(
        ref,
        scope,
        `the subquery ${sql} reads '${ref.parts.map((p) => p.name).join('.')}' of a query two or more levels out, where weir cannot correlate it (a subquery in between is not a plain SELECT)`,
        'a subquery may read the columns of a query further out through subqueries that are plain SELECT blocks; join that column into the query in between',
      );
    }
  }
}

/** The error to report for `error`, met binding a subquery's FROM: an outer column read inside it is refused saying so. */
function innerFromError(from: TableRef, error: unknown, outer: Scope | undefined, sql: string): unknown {
  if (outer !== undefined && error instanceof WeirError && (error.code === 'UNKNOWN_COLUMN' || error.code === 'UNKNOWN_TABLE')) {
    const failed = failedOuterReference(from, error, outer);
    if (failed !== undefined) {
      return new WeirError('UNSUPPORTED', `the subquery ${sql} reads the outer column '${failed.parts.map((p) => p.name).join('.')}' inside its FROM, which is not supported (no LATERAL correlation)`, {
        span: failed.span,
        hint: "move the condition into the subquery's own WHERE (an outer join's ON cannot read the outer query)",
      });
    }
  }
  return error;
}

/**
 * `query` with the conjunct of a join's ON that reads the outer column binding its FROM failed on
 * (`error`) moved into its WHERE, where the correlation is pulled out as usual: `FROM u JOIN v ON
 * u.k = v.k AND v.x = t.x` filters as `FROM u JOIN v ON u.k = v.k WHERE v.x = t.x`. Only for a join
 * whose rows reach the FROM's result as they are — an inner or cross join, or one on the preserved
 * side of an outer join (in the ON of an outer join itself, or below its null-supplying side, the
 * condition decides which rows are NULL-extended, not which are kept); undefined otherwise.
 */
function withOuterJoinConditionInWhere(query: SelectQuery, error: unknown, outer: Scope): SelectQuery | undefined {
  if (query.from === undefined || !(error instanceof WeirError) || (error.code !== 'UNKNOWN_COLUMN' && error.code !== 'UNKNOWN_TABLE')) return undefined;
  const failed = failedOuterReference(query.from, error, outer);
  if (failed === undefined) return undefined;
  const contains = (expr: Expr): boolean => columnRefs(expr).some((ref) => ref.span.start.offset === failed.span.start.offset && ref.span.end.offset === failed.span.end.offset);
  const moved = withOnConjunctsMoved(query, contains, false);
  return moved === query ? undefined : moved;
}

/**
 * A subquery predicate over a UNION [ALL] (no ORDER BY, LIMIT or OFFSET) whose branches read the
 * outer query, which weir cannot correlate as one subquery, as one predicate per branch: `EXISTS (a
 * UNION b)` is `EXISTS (a) OR EXISTS (b)`, `x IN (a UNION b)` is `x IN (a) OR x IN (b)` and `x > ANY
 * (...)` likewise, `x > ALL (a UNION b)` is `x > ALL (a) AND x > ALL (b)` — equal in SQL's
 * three-valued logic, duplicates and NULLs included — under the NOTs the predicate had. Undefined
 * for any other predicate, or when the set operation binds without the outer query.
 */
export function splitCorrelatedUnion(predicate: SubqueryPredicate, outer: Scope, ctx: BinderContext): Expr | undefined {
  const core = predicate.core;
  const branches = unionBranches(core.query);
  if (branches.length < 2 || !readsOuterInSetOperation(core.query, outer, ctx)) return undefined;
  const span = predicate.span;
  const parts: Expr[] = branches.map((query) => {
    switch (core.kind) {
      case 'exists':
        return { kind: 'exists', query, negated: false, span };
      case 'in-subquery':
        return { kind: 'in-subquery', expr: core.expr, query, negated: false, span };
      case 'quantified':
        return { ...core, query, span };
      default: {
        const never: never = core;
        throw new Error(`unexpected subquery predicate ${(never as { kind: string }).kind}`);
      }
    }
  });
  const op = core.kind === 'quantified' && core.quantifier === 'ALL' ? 'AND' : 'OR';
  const combined = parts.reduce((left, right) => ({ kind: 'binary', op, left, right, span }));
  const negated = core.kind === 'quantified' ? predicate.negated : predicate.negated !== core.negated;
  return negated ? { kind: 'unary', op: 'NOT', operand: combined, span } : combined;
}

/** The branches of a tree of UNION and UNION ALL without ORDER BY, LIMIT or OFFSET (the query alone otherwise). */
function unionBranches(query: Query): Query[] {
  if (query.kind !== 'set-operation' || query.op !== 'UNION' || query.orderBy.length > 0 || query.limit !== undefined || query.offset !== undefined) return [query];
  return [...unionBranches(query.left), ...unionBranches(query.right)];
}

/**
 * True when binding the set operation `query` fails on a name only the outer query resolves (a
 * correlation inside it, or in a subquery nested in it); false when it binds; any other error is
 * thrown as it is.
 */
function readsOuterInSetOperation(query: Query, outer: Scope, ctx: BinderContext): boolean {
  try {
    bindQuery(query, ctx.withOuterScope(outer));
    return false;
  } catch (error) {
    // (A subquery nested in a branch reading the outer query: each branch carries the value.)
    if (error instanceof DistantReferenceError && error.scope === outer) return true;
    if (!(error instanceof WeirError) || (error.code !== 'UNKNOWN_COLUMN' && error.code !== 'UNKNOWN_TABLE')) throw error;
    return failedOuterReference(query, error, outer) !== undefined;
  }
}

/** Binds an (uncorrelated) query; a name that only the outer query has is reported as a correlation weir cannot plan there. */
function bindRefusingOuter(query: Query, outer: Scope | undefined, ctx: BinderContext, sql: string) {
  try {
    return bindQuery(query, outer === undefined ? ctx : ctx.withOuterScope(outer));
  } catch (error) {
    if (outer !== undefined && error instanceof WeirError && (error.code === 'UNKNOWN_COLUMN' || error.code === 'UNKNOWN_TABLE')) {
      const failed = failedOuterReference(query, error, outer);
      if (failed !== undefined) {
        const name = failed.parts.map((p) => p.name).join('.');
        throw new WeirError('UNSUPPORTED', `the subquery ${sql} reads the outer column '${name}' where weir cannot correlate it (inside a UNION, INTERSECT, EXCEPT, a FROM item or a nested block)`, {
          span: failed.span,
          hint: 'only the WHERE of a plain SELECT subquery may read the outer query; for a set operation, write one subquery per branch (EXISTS (...) OR EXISTS (...))',
        });
      }
      const ref = outerReferenceOutsideWhere(query, outer);
      if (ref !== undefined) {
        const name = ref.parts.map((p) => p.name).join('.');
        const limited = query.kind === 'select' && (query.limit !== undefined || query.offset !== undefined);
        throw new WeirError('UNSUPPORTED', `the subquery ${sql} reads the outer column '${name}' outside its WHERE clause${limited ? ' and ORDER BY' : ''}, which is not supported${limited ? ' with LIMIT / OFFSET' : ''}`, {
          span: ref.span,
          hint: limited
            ? 'with LIMIT, only the WHERE and ORDER BY of a subquery or LATERAL query may read the outer query: select the inner columns and compute the expression outside it'
            : 'only conditions in the WHERE of a subquery may read the outer query (inner.c = outer.x); join the tables in the outer query instead',
        });
      }
    }
    throw error;
  }
}

/** The column reference an unknown-name error points at, anywhere in a query that is not a plain SELECT, when the outer scope resolves it. */
function failedOuterReference(query: unknown, error: WeirError, outer: Scope): ColumnRef | undefined {
  if ((query as { kind?: unknown }).kind === 'select' || error.span === undefined) return undefined;
  const at = error.span.start.offset;
  let found: ColumnRef | undefined;
  const walk = (node: unknown): void => {
    if (found !== undefined || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const record = node as Record<string, unknown>;
    if (record.kind === 'column-ref') {
      const ref = node as ColumnRef;
      if (ref.span.start.offset <= at && at < ref.span.end.offset && resolves(outer, ref)) found = ref;
      return;
    }
    for (const [key, value] of Object.entries(record)) if (key !== 'span') walk(value);
  };
  walk(query);
  return found;
}

/** A column reference of the select list, GROUP BY or HAVING of a select block that only the outer scope resolves. */
function outerReferenceOutsideWhere(query: Query, outer: Scope): ColumnRef | undefined {
  if (query.kind !== 'select') return undefined;
  const exprs: Expr[] = [
    ...query.items.flatMap((i) => (i.kind === 'select-expr' ? [i.expr] : [])),
    ...query.groupBy.flatMap((g) => (g.kind === 'group-expr' ? [g.expr] : [])),
    ...(query.having === undefined ? [] : [query.having]),
    ...(query.where === undefined ? [] : [query.where]),
  ];
  for (const expr of exprs) {
    for (const ref of columnRefs(expr)) if (resolves(outer, ref)) return ref;
  }
  return undefined;
}

function identifier(name: string, span: SourceSpan): Identifier {
  return { kind: 'identifier', name, quoted: true, span };
}

/** A copy of an expression tree with its column references replaced (not inside nested subqueries). */
function mapColumnRefs(expr: Expr, map: (ref: ColumnRef) => ColumnRef): Expr {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    if (record.kind === 'column-ref') return map(node as ColumnRef);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) out[key] = key === 'query' || key === 'span' ? value : walk(value);
    return out;
  };
  return walk(expr) as Expr;
}

/**
 * The value of a column (the first) of an aggregating plan over no rows, when it is not NULL: the
 * select list's expression with COUNT as 0 and every other aggregate and grouping key as NULL
 * (the COUNT bug: a correlation value without rows has no group, yet COUNT over it is 0).
 */
function emptyValueOf(plan: LogicalNode, ctx: BinderContext, column = 0): ScalarExpr | null {
  let top = plan;
  let value: ScalarExpr | undefined;
  if (top.kind === 'project') {
    value = top.exprs[column];
    top = top.input;
  }
  if (top.kind !== 'aggregate') return null;
  const aggregate = top;
  value ??= Exprs.inputRef(column, aggregate.schema[column]!.type);
  const substituted = remapInputs(value, (ref) => {
    const call = ref.index >= aggregate.keys.length ? aggregate.calls[ref.index - aggregate.keys.length] : undefined;
    return call?.function === 'COUNT' ? Exprs.literal(0, SqlTypes.bigint(false)) : Exprs.literal(null, withNullable(ref.type, true));
  });
  if (substituted.kind === 'literal' && substituted.value === null) return null;
  return failsOverNoRows(substituted, ctx) ? null : substituted;
}

/**
 * Whether the value over no rows cannot be computed (`COUNT(*) / COUNT(x)`, 0 / 0): PostgreSQL
 * would fail only a query with an outer row that reads it, and a streaming job meets outer rows
 * before the subquery's rows arrive, so such a subquery gives NULL over no rows instead (as
 * RisingWave gives NULL for an expression that fails).
 */
function failsOverNoRows(value: ScalarExpr, ctx: BinderContext): boolean {
  if (!isConstantExpr(value, ctx.functions)) return false;
  try {
    evaluateConstantExpr(value, ctx.functions, ctx.timeZone);
    return false;
  } catch (error) {
    if (error instanceof WeirError && error.code === 'EXECUTION_ERROR') return true;
    throw error;
  }
}


/**
 * `x [NOT] IN (SELECT v ...)` and `x <op> ANY | ALL (SELECT v ...)` used as a value, in SQL's
 * three-valued logic, from scalar subqueries per outer row (each a LEFT join with aggregates grouped
 * by the correlation columns): `n` the rows, `m` the rows whose `v` is not NULL, and what decides
 * a TRUE comparison — for `=` the number of rows with `v = x`, for `<` / `<=` the largest `v`, for
 * `>` / `>=` the smallest, for `<>` both. `x op ANY q` is FALSE when n = 0, TRUE when some `x op v`
 * is, else NULL when `x` is NULL or m < n, else FALSE; `x op ALL q` is `NOT (x op' ANY q)` with the
 * negated comparison, NOT IN `NOT (x = ANY q)`. The subquery is correlated as a scalar subquery
 * is; one that aggregates without GROUP BY compares with its one value. Appends
 * the values to `plan`.
 */
export function attachComparisonAsValue(plan: LogicalNode, core: InSubqueryExpr | QuantifiedComparison, x: ScalarExpr, outer: Scope, ctx: BinderContext): { plan: LogicalNode; value: ScalarExpr } {
  const functions = ctx.functions;
  const span = core.span;
  const call = (name: string, args: readonly ScalarExpr[]): ScalarExpr => makeCall(name, args, span, { functions });
  const all = core.kind === 'quantified' && core.quantifier === 'ALL';
  const written = core.kind === 'in-subquery' ? '=' : core.op;
  // x op ALL q is NOT (x op' ANY q); NOT IN is NOT (x = ANY q).
  const op = all ? NEGATED[written] : written;
  const negated = all || (core.kind === 'in-subquery' && core.negated);
  const not = (e: ScalarExpr): ScalarExpr => (negated ? call('NOT', [e]) : e);
  if (core.kind === 'in-subquery' && rowArity(core.expr) > 1) {
    const value = attachRowInAsValue(plan, core, x, outer, ctx);
    return { plan: value.plan, value: not(value.value) };
  }
  const bound = bindSubquery(core.query, outer, ctx, 'scalar', span);
  requireOneColumn(bound, core.kind === 'quantified' ? `${core.op} ${core.quantifier} (subquery)` : 'IN (subquery)', span);
  const outerColumns: OuterColumns = { width: outer.columns.length };
  if (bound.globalAggregate) {
    const scalar: PreparedScalar = { bound: { ...bound, singleRow: true }, type: withNullable(bound.plan.schema[0]!.type, true) };
    const withValue = attachScalar(plan, scalar, outerColumns);
    const v = Exprs.inputRef(withValue.schema.length - 1, scalar.type);
    return { plan: withValue, value: not(call(op, [x, v])) };
  }
  const sub = bound.plan;
  const value = sub.schema[0]!;
  const bigint = SqlTypes.bigint(false);
  const extreme = withNullable(withoutTimeAttribute(value.type), true);
  const aggregateCall = (fn: 'COUNT' | 'MIN' | 'MAX', args: number[], name: string): AggregateCall => ({ function: fn, args, argTypes: args.map((a) => sub.schema[a]!.type), distinct: false, filter: null, type: fn === 'COUNT' ? bigint : extreme, name });
  // One aggregate grouped by `keys` (sub columns), as [value, keys...]; the correlation re-indexed to it.
  const grouped = (keys: number[], agg: AggregateCall): BoundSubquery => {
    const aggregate: LogicalNode = LogicalAggregate.create({ input: sub, keys, calls: [agg] });
    const exprs = [Exprs.inputRef(keys.length, agg.type), ...keys.map((k, i) => Exprs.inputRef(i, sub.schema[k]!.type))];
    const projected: LogicalNode = LogicalProject.create({ input: aggregate, exprs, names: [agg.name, ...keys.map((k) => sub.schema[k]!.name)] });
    const correlation = bound.correlation.map((c) => remapInputs(c, (r) => (r.index < outerColumns.width ? r : Exprs.inputRef(outerColumns.width + 1 + keys.indexOf(r.index - outerColumns.width), r.type))));
    const emptyValue = agg.function === 'COUNT' ? Exprs.literal(0, bigint) : null;
    return { ...bound, plan: projected, width: 1, correlation, singleRow: true, emptyValue, globalAggregate: false };
  };
  let current = plan;
  const attach = (b: BoundSubquery): ScalarExpr => {
    const type = b.plan.schema[0]!.type;
    current = attachScalar(current, { bound: b, type }, outerColumns);
    return Exprs.inputRef(current.schema.length - 1, type);
  };
  const cors = Array.from({ length: sub.schema.length - 1 }, (_, i) => i + 1);
  const zero = Exprs.literal(0, bigint);
  let someTrue: ScalarExpr;
  if (op === '=') {
    // The rows whose value equals x: x = v joins the correlation (an equality between the inputs).
    const equal = grouped([0, ...cors], aggregateCall('COUNT', [], '$equal'));
    someTrue = call('>', [attach({ ...equal, correlation: [...equal.correlation, call('=', [x, Exprs.inputRef(outerColumns.width + 1, value.type)])] }), zero]);
  } else if (op === '<' || op === '<=') {
    someTrue = call(op, [x, attach(grouped(cors, aggregateCall('MAX', [0], '$max')))]);
  } else if (op === '>' || op === '>=') {
    someTrue = call(op, [x, attach(grouped(cors, aggregateCall('MIN', [0], '$min')))]);
  } else {
    const min = attach(grouped(cors, aggregateCall('MIN', [0], '$min')));
    const max = attach(grouped(cors, aggregateCall('MAX', [0], '$max')));
    someTrue = call('OR', [call('<>', [min, x]), call('<>', [max, x])]);
  }
  const rows = attach(grouped(cors, aggregateCall('COUNT', [], '$rows')));
  const values = attach(grouped(cors, aggregateCall('COUNT', [0], '$values')));
  const bool = SqlTypes.boolean(true);
  const mark: ScalarExpr = {
    kind: 'case',
    whens: [
      { when: call('=', [rows, zero]), then: Exprs.literal(false, bool) },
      { when: someTrue, then: Exprs.literal(true, bool) },
      { when: call('OR', [call('IS NULL', [x]), call('<', [values, rows])]), then: Exprs.literal(null, bool) },
    ],
    else: Exprs.literal(false, bool),
    type: bool,
  };
  return { plan: current, value: not(mark) };
}

/** A LATERAL derived table joined to the FROM items to its left: their columns, then its own (named as its select list). */
export interface LateralJoin {
  readonly plan: LogicalNode;
  readonly columns: readonly Field[];
}

/**
 * `left [CROSS | INNER | LEFT] JOIN LATERAL (query) [ON on]`, decorrelated as Calcite does: the
 * query is bound as a subquery correlated to `left` (its WHERE conjuncts that read `left`'s columns
 * pulled out), then joined with `left` on them and `on` (`bindOn` binds it over `left`'s columns
 * then the subquery's). Equalities become join keys; a subquery that aggregates and is correlated
 * by other conditions is computed over the distinct values of the outer columns it reads. One that
 * aggregates without GROUP BY has exactly one row per `left` row: a LEFT join on the correlation,
 * the columns of a row without a match their values over no rows (COUNT's 0), then `on` filters
 * (INNER) or NULLs them out (LEFT). A HAVING of such a query becomes a flag column that takes part
 * in the condition. `left` must have no time attributes (the join is a regular one).
 */
export function joinLateral(left: { readonly plan: LogicalNode; readonly scope: Scope }, query: Query, joinType: 'INNER' | 'LEFT', bindOn: (columns: readonly Field[]) => ScalarExpr | null, ctx: BinderContext, span: SourceSpan): LateralJoin {
  const functions = ctx.functions;
  const bool = SqlTypes.boolean(false);
  // HAVING without GROUP BY: the block's row exists when the flag (its last column) is TRUE.
  const flagged = query.kind === 'select' && query.groupBy.length === 0 && query.having !== undefined && containsAggregate(query.having, functions);
  const bound = bindSubquery(flagged ? withHavingFlag(query) : query, left.scope, ctx, 'compared', span);
  const width = left.plan.schema.length;
  const visible = flagged ? bound.width - 1 : bound.width;
  const subquery = withOuterValues(bound, left.plan, bound.correlation);
  const and = (conjuncts: readonly ScalarExpr[]): ScalarExpr | null => conjunction(conjuncts.filter((c) => !(c.kind === 'literal' && c.value === true)));
  // (Over the join of `left` with the subquery, or the per-row values: the flag follows the visible columns.)
  const flag = (type: SqlType): ScalarExpr[] => (flagged ? [Exprs.inputRef(width + visible, type)] : []);
  const output = (plan: LogicalNode, exprs: readonly ScalarExpr[], names: readonly string[]): LateralJoin => {
    const projected = LogicalProject.create({ input: plan, exprs: exprs.map(plainValue), names });
    return { plan: projected, columns: projected.schema.slice(width) };
  };
  const leftColumns = (plan: LogicalNode): ScalarExpr[] => left.plan.schema.map((_, i) => Exprs.inputRef(i, plan.schema[i]!.type));
  const names = [...left.plan.schema.map((f) => f.name), ...bound.plan.schema.slice(0, visible).map((f) => f.name)];
  if (!bound.globalAggregate || bound.correlation.length === 0) {
    const fields = bound.plan.schema.slice(0, visible).map((f) => ({ name: f.name, type: withoutTimeAttribute(joinType === 'LEFT' ? withNullable(f.type, true) : f.type) }));
    const on = bindOn(fields);
    const joined = planJoin(joinType, left.plan, subquery, and([...bound.correlation, ...flag(subquery.schema[visible]?.type ?? bool), ...(on === null ? [] : [on])]), functions);
    return output(joined, [...leftColumns(joined), ...fields.map((_, i) => Exprs.inputRef(width + i, joined.schema[width + i]!.type))], names);
  }
  // One row per left row: the values over no rows where the correlation meets none.
  const sub = subquery.schema;
  const marked: LogicalNode = LogicalProject.create({ input: subquery, exprs: [...sub.map((f, i) => Exprs.inputRef(i, f.type)), Exprs.literal(true, bool)], names: [...sub.map((f) => f.name), '$matched'] });
  const joined = planJoin('LEFT', left.plan, marked, conjunction(bound.correlation), functions);
  const matched = Exprs.call('IS NOT NULL', [Exprs.inputRef(width + sub.length, SqlTypes.boolean(true))], bool);
  const values = Array.from({ length: bound.width }, (_, i): ScalarExpr => {
    const value = Exprs.inputRef(width + i, joined.schema[width + i]!.type);
    const empty = emptyValueOf(bound.plan, ctx, i);
    if (empty === null) return value;
    const type = withNullable(withoutTimeAttribute(bound.plan.schema[i]!.type), bound.plan.schema[i]!.type.nullable || empty.type.nullable);
    return { kind: 'case', whens: [{ when: matched, then: castIfNeeded(value, type) }], else: castIfNeeded(empty, type), type };
  });
  const perRow: LogicalNode = LogicalProject.create({ input: joined, exprs: [...leftColumns(joined), ...values], names: [...names, ...(flagged ? ['$having'] : [])] });
  const fields = perRow.schema.slice(width, width + visible).map((f) => ({ name: f.name, type: joinType === 'LEFT' ? withNullable(f.type, true) : f.type }));
  const on = bindOn(fields);
  const condition = and([...flag(perRow.schema[width + visible]?.type ?? bool), ...(on === null ? [] : [on])]);
  const columns = (input: LogicalNode): ScalarExpr[] => fields.map((_, i) => Exprs.inputRef(width + i, input.schema[width + i]!.type));
  if (condition === null) return output(perRow, [...leftColumns(perRow), ...columns(perRow)], names);
  if (joinType === 'INNER') {
    const filtered: LogicalNode = LogicalFilter.create({ input: perRow, condition });
    return output(filtered, [...leftColumns(filtered), ...columns(filtered)], names);
  }
  const nulled = columns(perRow).map((c, i): ScalarExpr => ({ kind: 'case', whens: [{ when: condition, then: c }], else: Exprs.literal(null, fields[i]!.type), type: withNullable(c.type, true) }));
  return output(perRow, [...leftColumns(perRow), ...nulled], names);
}

/** A select block aggregating without GROUP BY, its HAVING `h` replaced by a last column `CASE WHEN h THEN TRUE ELSE FALSE END`. */
function withHavingFlag(query: SelectQuery): SelectQuery {
  const span = query.having!.span;
  const bool = (value: boolean): Expr => ({ kind: 'literal', span, type: 'boolean', value });
  const flag: Expr = { kind: 'case', span, whens: [{ when: query.having!, then: bool(true) }], else: bool(false) };
  return { ...query, having: undefined, items: [...query.items, { kind: 'select-expr', span, expr: flag, alias: identifier('$having', span) }] };
}

/** `expr` as `type` (a cast when the types differ beyond nullability). */
function castIfNeeded(expr: ScalarExpr, type: SqlType): ScalarExpr {
  return expr.type.kind === type.kind && JSON.stringify({ ...expr.type, nullable: true }) === JSON.stringify({ ...type, nullable: true }) ? expr : Exprs.cast(expr, type);
}

/**
 * `(x1, ..., xn) IN (SELECT v1, ..., vn ...)` used as a value, in SQL's three-valued logic: TRUE
 * when some row has every `xi = vi` TRUE, else NULL when some row has none of them FALSE (the row
 * comparison is NULL), else FALSE. Both are counted per distinct value of the outer expressions it
 * reads (Calcite's value generator): those values are joined with the subquery's rows on its
 * correlation and `(x1 = v1 AND ...) IS NOT FALSE`, counted grouped by them (all rows, and those
 * whose comparison is TRUE), and the counts joined back to the outer rows null-safely (0 where
 * none). `row` is the bound ROW of the x's over `plan`. Appends the counts to `plan`.
 */
function attachRowInAsValue(plan: LogicalNode, core: InSubqueryExpr, row: ScalarExpr, outer: Scope, ctx: BinderContext): { plan: LogicalNode; value: ScalarExpr } {
  const functions = ctx.functions;
  const span = core.span;
  const call = (name: string, args: readonly ScalarExpr[]): ScalarExpr => makeCall(name, args, span, { functions });
  const bound = bindSubquery(core.query, outer, ctx, 'compared', span);
  const arity = rowArity(core.expr);
  requireColumns(bound, arity, 'IN (subquery)', span);
  if (bound.globalAggregate && bound.correlation.length > 0) {
    throw new WeirError('UNSUPPORTED', `a row IN used as a value is not supported over a correlated subquery that aggregates without GROUP BY ${bound.sql}`, {
      span,
      hint: 'compare each value with its own scalar subquery: x1 = (SELECT ...) AND x2 = (SELECT ...)',
    });
  }
  if (row.kind !== 'call' || row.name !== 'ROW' || row.args.length !== arity) throw new WeirError('INTERNAL_ERROR', `a row IN compares a row of ${arity} values`, { span });
  const W = outer.columns.length;
  const sub = withOuterValues(bound, plan, shiftCorrelation(bound.correlation, { width: W }, plan.schema.length));
  // The outer values: the row's fields, then the outer columns the correlation reads.
  const outerColumns = [...new Set(bound.correlation.flatMap((c) => inputRefsOf(c).filter((r) => r < W)))].sort((a, b) => a - b);
  const keys = [...row.args, ...outerColumns.map((i) => Exprs.inputRef(i, plan.schema[i]!.type))];
  const K = keys.length;
  const keyNames = keys.map((_, i) => `$k${i}`);
  const projected: LogicalNode = LogicalProject.create({ input: plan, exprs: keys, names: keyNames });
  const values: LogicalNode = LogicalAggregate.create({ input: projected, keys: keys.map((_, i) => i), calls: [] });
  // Over the values then the subquery's columns.
  const correlation = bound.correlation.map((c) => remapInputs(c, (r) => (r.index < W ? Exprs.inputRef(arity + outerColumns.indexOf(r.index), values.schema[arity + outerColumns.indexOf(r.index)]!.type) : Exprs.inputRef(K + r.index - W, r.type))));
  const comparison = Array.from({ length: arity }, (_, i) => call('=', [Exprs.inputRef(i, values.schema[i]!.type), Exprs.inputRef(K + i, sub.schema[i]!.type)])).reduce((a, b) => call('AND', [a, b]));
  const joined = planJoin('INNER', values, sub, conjunction([...correlation, call('IS NOT FALSE', [comparison])]), functions);
  const isTrue = call('IS TRUE', [comparison]);
  const pre: LogicalNode = LogicalProject.create({ input: joined, exprs: [...values.schema.map((_, i) => Exprs.inputRef(i, joined.schema[i]!.type)), isTrue], names: [...keyNames, '$true'] });
  const bigint = SqlTypes.bigint(false);
  const count = (name: string, filter: number | null): AggregateCall => ({ function: 'COUNT', args: [], argTypes: [], distinct: false, filter, type: bigint, name });
  const counts: LogicalNode = LogicalAggregate.create({ input: pre, keys: keys.map((_, i) => i), calls: [count('$notFalse', null), count('$true', K)] });
  let current = plan;
  const attach = (column: number): ScalarExpr => {
    const exprs = [Exprs.inputRef(column, bigint), ...keys.map((_, i) => Exprs.inputRef(i, counts.schema[i]!.type))];
    const countPlan: LogicalNode = LogicalProject.create({ input: counts, exprs, names: [counts.schema[column]!.name, ...keyNames] });
    // The outer rows meet their values' counts null-safely (over the outer scope then the counts' columns).
    const nullSafe = keys.map((k, i) => Exprs.call('IS NOT DISTINCT FROM', [k, Exprs.inputRef(W + 1 + i, countPlan.schema[1 + i]!.type)], SqlTypes.boolean(false)));
    const counted: BoundSubquery = { plan: countPlan, width: 1, correlation: nullSafe, singleRow: true, emptyValue: Exprs.literal(0, bigint), globalAggregate: false, sql: bound.sql };
    current = attachScalar(current, { bound: counted, type: bigint }, { width: W });
    return Exprs.inputRef(current.schema.length - 1, bigint);
  };
  const notFalse = attach(K);
  const matches = attach(K + 1);
  const zero = Exprs.literal(0, bigint);
  const bool = SqlTypes.boolean(true);
  const value: ScalarExpr = {
    kind: 'case',
    whens: [
      { when: call('>', [matches, zero]), then: Exprs.literal(true, bool) },
      { when: call('>', [notFalse, zero]), then: Exprs.literal(null, bool) },
    ],
    else: Exprs.literal(false, bool),
    type: bool,
  };
  return { plan: current, value };
}
