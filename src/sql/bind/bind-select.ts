/**
 * Binds one SELECT block: FROM, WHERE, then either a projection or a grouped aggregation
 * (pre-projection of keys and aggregate arguments → Aggregate → HAVING → projection; a group
 * window in the GROUP BY puts its window TVF over the FROM relation first; GROUPING SETS, ROLLUP
 * and CUBE bind to an Expand and a `$e` column, see bind-grouping-sets.ts), then DISTINCT, then
 * ORDER BY / LIMIT (which, without GROUP BY or DISTINCT, may read FROM columns the select list
 * drops). Output columns are named by their alias, by the column they read, or `EXPR$n`.
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { formatType, SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { type AggregateCall, type LogicalNode, LogicalAggregate, LogicalFilter, LogicalProject, LogicalValues } from '../../plan/logical/logical-node.js';
import type { Expr, FunctionCall, Identifier, InSubqueryExpr, OrderItem, QuantifiedComparison, ScalarSubquery, SelectItem, SelectQuery } from '../parse/ast.js';
import { bindAggregateCall, requireBoolean } from './bind-aggregate-call.js';
import { bindExpr, callName, containsAggregate, GROUPING_FUNCTIONS, visitExpr, withoutGlobalHaving, type ExprBindContext } from './bind-expr.js';
import { bindGroupWindow } from './bind-group-window.js';
import { splitGroupedOver } from './bind-grouped-over.js';
import { groupIdExpr, groupingExpr, groupingSetsAggregate, groupingSetsOf } from './bind-grouping-sets.js';
import { bindCommaJoin, bindJoinWhere } from './bind-join.js';
import { withOnSubqueriesMoved } from './bind-on-subqueries.js';
import { bindFrom } from './bind-query.js';
import { bindOrderLimit, readsOutput, type OrderLimitClauses, type SelectProjection } from './bind-order-limit.js';
import { bindWindowCalls } from './bind-over.js';
import { windowCalls } from './bind-rank.js';
import { andOf, astConjuncts, attachComparisonAsValue, attachPredicate, attachScalar, containsSubquery, materializedExpr, materializeRelation, preparePredicate, prepareScalar, splitCorrelatedUnion, subqueryPredicate, type OuterColumns, type PreparedPredicate, type PreparedScalar } from './bind-subquery.js';
import type { BinderContext, BoundRelation } from './binder-context.js';
import { Scope } from './scope.js';

/** Aggregate references are bound as input references from this index on, then renumbered. */
const AGGREGATE_BASE = 1 << 24;
/** GROUPING(...) calls are bound as input references from this index on, then replaced by their value. */
const GROUPING_BASE = 1 << 25;

/** In a grouped select, scalar subquery values are bound as input references from this index on, then renumbered. */
const SUBQUERY_BASE = 1 << 28;

/** A select-list entry after `*` expansion, with the name its column will have. */
interface OutputItem {
  readonly expr: Expr | { readonly kind: 'scope-column'; readonly index: number };
  readonly name: string;
  readonly span: SourceSpan;
}

/** Binds a SELECT block. */
export function bindSelect(query: SelectQuery, ctx: BinderContext): BoundRelation {
  // Subqueries in a join's ON are conditions of the WHERE, or filter the side of an outer join they read.
  const onMoved = withOnSubqueriesMoved(query);
  if (onMoved !== query) return bindSelect(onMoved, ctx);
  // Window functions over a grouped select read the grouping's rows: a select over the grouped one.
  const split = splitGroupedOver(query, ctx.functions);
  if (split !== undefined) return bindSelect(split, ctx);
  // `FROM a, b, c WHERE a.k = b.k AND ...`: the WHERE's conjuncts are the ON conditions of the joins.
  // Conjuncts of the WHERE with subqueries are planned after the FROM and the others.
  const whereConjuncts = query.where === undefined ? [] : astConjuncts(query.where);
  const subqueryConjuncts = whereConjuncts.filter((c) => containsSubquery(c));
  const plainWhere = subqueryConjuncts.length === 0 ? query.where : andOf(whereConjuncts.filter((c) => !containsSubquery(c)));
  // `FROM a JOIN b ON ... WHERE ...`: the WHERE is part of the join's condition (see bindJoinWhere).
  const overWindows = query.items.some((i) => i.kind === 'select-expr' && windowCalls([i.expr]).length > 0);
  const comma = query.from !== undefined && plainWhere !== undefined ? (bindCommaJoin(query.from, plainWhere, ctx) ?? (overWindows ? undefined : bindJoinWhere(query.from, plainWhere, ctx))) : undefined;
  const where = comma === undefined ? plainWhere : undefined;
  const bound = comma ?? (query.from === undefined ? singleRow() : bindFrom(query.from, ctx));
  // A subquery of the WHERE, or of the select list of a block that does not aggregate, is joined
  // with the FROM relation: a regular join, whose output has no time attributes (as in Flink), so
  // they are materialized before anything is bound over them.
  const aggregates = query.groupBy.length > 0 || query.having !== undefined || query.items.some((i) => i.kind === 'select-expr' && containsAggregate(i.expr, ctx.functions));
  const joinsSubquery = subqueryConjuncts.length > 0 || (!aggregates && query.items.some((i) => i.kind === 'select-expr' && containsSubquery(i.expr)));
  const from = joinsSubquery ? materializeRelation(bound) : bound;
  let plan = from.plan;
  const scope = from.scope;
  // A scalar subquery appends its value to the plan (after the FROM columns, which the scope indexes).
  const onSubquery = (subquery: ScalarSubquery): ScalarExpr => {
    const prepared = prepareScalar(subquery, scope, ctx);
    plan = attachScalar(plan, prepared, { width: scope.columns.length });
    return Exprs.inputRef(plan.schema.length - 1, prepared.type);
  };
  // `x IN (subquery)` / `x > ANY (subquery)` as a value appends what it is computed from (see attachComparisonAsValue).
  const onInValue = (predicate: InSubqueryExpr | QuantifiedComparison): ScalarExpr => {
    const x = bindExpr(predicate.expr, exprContext);
    const attached = attachComparisonAsValue(plan, predicate, x, scope, ctx);
    plan = attached.plan;
    return attached.value;
  };
  const exprContext: ExprBindContext = { scope, functions: ctx.functions, clause: 'WHERE', onSubquery, onInValue };

  const items = expandItems(query.items, scope);
  const deferred = where !== undefined && readsWindowAlias(where, items, scope);
  if (where !== undefined && !deferred) {
    const condition = bindExpr(where, exprContext);
    requireBoolean(condition, 'WHERE', where.span);
    plan = LogicalFilter.create({ input: plan, condition });
  }
  if (subqueryConjuncts.length > 0) {
    const filters: ScalarExpr[] = [];
    for (const conjunct of subqueryConjuncts) {
      // (A subquery aggregating without GROUP BY with a HAVING is bound as a value: see withoutGlobalHaving.)
      const predicate = subqueryPredicate(conjunct);
      // EXISTS / IN over a correlated UNION: one predicate per branch, combined (see splitCorrelatedUnion).
      const split = predicate === undefined ? undefined : splitCorrelatedUnion(predicate, scope, ctx);
      if (predicate === undefined || split !== undefined || withoutGlobalHaving(predicate.core, ctx.functions) !== undefined) {
        const condition = bindExpr(split ?? conjunct, exprContext);
        requireBoolean(condition, 'WHERE', conjunct.span);
        filters.push(condition);
        continue;
      }
      const prepared = preparePredicate(predicate, scope, ctx);
      const value = predicate.core.kind === 'exists' ? undefined : bindExpr(predicate.core.expr, exprContext);
      const attached = attachPredicate(plan, prepared, value, { width: scope.columns.length }, ctx.functions);
      plan = attached.plan;
      if (attached.filter !== undefined) filters.push(attached.filter);
    }
    if (filters.length > 0) {
      const condition = filters.reduce((a, b) => Exprs.call('AND', [a, b], SqlTypes.boolean(a.type.nullable || b.type.nullable)));
      plan = LogicalFilter.create({ input: plan, condition });
    }
  }

  const grouped =
    query.groupBy.length > 0 ||
    query.having !== undefined ||
    items.some((item) => item.expr.kind !== 'scope-column' && containsAggregate(item.expr, ctx.functions));

  let result: BoundRelation;
  let projection: SelectProjection | undefined;
  // ORDER BY items of a grouped SELECT with a LIMIT that aggregate or read columns the select
  // list does not name (grouping columns): computed as hidden columns of the aggregation, ordered
  // by position, and dropped after the Top-N.
  let orderClauses: OrderLimitClauses = query;
  let hiddenOrderColumns = 0;
  if (grouped) {
    // (Not under DISTINCT, where ORDER BY may only read the select list.)
    const outputSchema = items.map((item) => ({ name: item.name }));
    const hides = (item: OrderItem): boolean =>
      !(item.expr.kind === 'literal' && item.expr.type === 'number') && (containsAggregate(item.expr, ctx.functions) || containsGrouping(item.expr, ctx) || !readsOutput(item.expr, outputSchema));
    const aggregatedOrder = query.limit === undefined || query.distinct ? [] : query.orderBy.filter(hides);
    const hiddenItems: OutputItem[] = aggregatedOrder.map((item, i) => ({ expr: item.expr, name: `$order${i}`, span: item.expr.span }));
    result = bindGrouped(query, [...items, ...hiddenItems], plan, scope, ctx);
    if (hiddenItems.length > 0) {
      hiddenOrderColumns = hiddenItems.length;
      const positionOf = (item: OrderItem): Expr => ({ kind: 'literal', type: 'number', text: String(items.length + aggregatedOrder.indexOf(item) + 1), span: item.expr.span });
      orderClauses = { ...query, orderBy: query.orderBy.map((item) => (aggregatedOrder.includes(item) ? { ...item, expr: positionOf(item) } : item)) };
    }
  } else {
    const windowed = windowCalls(items.flatMap((i) => (i.expr.kind === 'scope-column' ? [] : [i.expr])));
    if (windowed.length > 0) {
      const selectContext = { ...exprContext, clause: 'SELECT' as const };
      // A subquery in a window call's arguments would land below the window's input: refused there.
      const bound = bindWindowCalls(plan, windowed, query.windows, { ...selectContext, onSubquery: undefined, onInValue: undefined }, ctx);
      plan = bound.plan;
      const onWindowCall = (call: FunctionCall): ScalarExpr => bound.values.get(call)!;
      const exprs = items.map((item) => (item.expr.kind === 'scope-column' ? columnRef(scope, item.expr.index) : bindExpr(item.expr, { ...selectContext, onWindowCall })));
      result = project(plan, exprs, items.map((i) => i.name));
      projection = { input: plan, exprs, from: { ...exprContext, clause: 'ORDER BY', onSubquery: undefined, onInValue: undefined } };
    } else {
      const exprs = items.map((item) => (item.expr.kind === 'scope-column' ? columnRef(scope, item.expr.index) : bindExpr(item.expr, { ...exprContext, clause: 'SELECT' })));
      // (`plan` now has the values of the select list's scalar subqueries.)
      result = project(plan, exprs, items.map((i) => i.name));
      projection = { input: plan, exprs, from: { ...exprContext, clause: 'ORDER BY', onSubquery: undefined, onInValue: undefined } };
    }
  }
  if (deferred) {
    const condition = bindExpr(where, { scope: Scope.of(result.schema, undefined), functions: ctx.functions, clause: 'WHERE' });
    requireBoolean(condition, 'WHERE', where.span);
    result = { plan: LogicalFilter.create({ input: result.plan, condition }), schema: result.schema };
  }
  if (query.distinct) result = distinct(result);
  const ordered = bindOrderLimit(result, orderClauses, ctx, deferred || query.distinct ? undefined : projection);
  if (hiddenOrderColumns === 0) return ordered;
  const visible = ordered.schema.slice(0, ordered.schema.length - hiddenOrderColumns);
  return project(ordered.plan, visible.map((f, i) => Exprs.inputRef(i, f.type)), visible.map((f) => f.name));
}

/**
 * Whether `where` names the alias of a select item computed with OVER (and no FROM column of that
 * name): weir's extension, which the published Nexmark q6 relies on (`SELECT *, ROW_NUMBER() OVER
 * (...) AS rownum FROM ... WHERE rownum <= 1`). Such a WHERE filters the select's output.
 */
function readsWindowAlias(where: Expr, items: readonly OutputItem[], scope: Scope): boolean {
  const aliases = new Set(items.filter((i) => i.expr.kind !== 'scope-column' && windowCalls([i.expr]).length > 0).map((i) => i.name.toLowerCase()));
  if (aliases.size === 0) return false;
  let reads = false;
  visitExpr(where, (e) => {
    if (e.kind !== 'column-ref' || e.parts.length !== 1) return;
    const name = e.parts[0]!.name.toLowerCase();
    if (aliases.has(name) && !scope.columns.some((c) => c.name.toLowerCase() === name)) reads = true;
  });
  return reads;
}

/** Whether `expr` calls GROUPING, GROUPING_ID or GROUP_ID (which only a grouped select list computes). */
function containsGrouping(expr: Expr, ctx: BinderContext): boolean {
  let found = false;
  visitExpr(expr, (e) => {
    if (e.kind === 'call' && e.over === undefined && GROUPING_FUNCTIONS.has(callName(e)) && ctx.functions.lookup(callName(e)) === undefined) found = true;
  });
  return found;
}

function singleRow(): { plan: LogicalNode; scope: Scope } {
  return { plan: LogicalValues.create({ rows: [[]], columns: [] }), scope: new Scope([]) };
}

function expandItems(items: readonly SelectItem[], scope: Scope): OutputItem[] {
  const out: OutputItem[] = [];
  items.forEach((item, position) => {
    if (item.kind === 'select-star') {
      const fields = compositeStar(item.qualifier, scope, item.span);
      if (fields !== undefined) {
        out.push(...fields);
        return;
      }
      const qualifier = item.qualifier.length === 0 ? undefined : item.qualifier[item.qualifier.length - 1]!.name;
      for (const index of scope.columnsOf(qualifier, item.span)) {
        out.push({ expr: { kind: 'scope-column', index }, name: scope.columns[index]!.name, span: item.span });
      }
      return;
    }
    out.push({ expr: item.expr, name: item.alias?.name ?? implicitName(item.expr, position), span: item.span });
  });
  return out;
}

/**
 * `c.*` (or `t.c.*`, `c.f.*`) where the qualifier names a ROW value rather than a table: its fields,
 * each named as the field (Flink's expansion of a composite column); undefined for a table's `t.*`.
 */
function compositeStar(qualifier: readonly Identifier[], scope: Scope, span: SourceSpan): OutputItem[] | undefined {
  if (qualifier.length === 0 || (qualifier.length === 1 && scope.isQualifier(qualifier[0]!.name))) return undefined;
  let type: SqlType;
  try {
    type = scope.resolve(qualifier, span).type;
  } catch (error) {
    if (error instanceof WeirError && qualifier.length === 1) return undefined;
    throw error;
  }
  if (type.kind !== 'ROW') throw new WeirError('TYPE_MISMATCH', `${qualifier.map((q) => q.name).join('.')}.* needs a table or a ROW value, not ${formatType(type)}`, { span });
  return type.fields.map((field) => ({
    expr: { kind: 'column-ref', span, parts: [...qualifier, { kind: 'identifier', name: field.name, quoted: true, span }] },
    name: field.name,
    span,
  }));
}

/** Flink's naming: a column reference or field access keeps its last name, anything else is `EXPR$<position>`. */
function implicitName(expr: Expr, position: number): string {
  if (expr.kind === 'column-ref') return expr.parts[expr.parts.length - 1]!.name;
  if (expr.kind === 'field-access') return expr.field.name;
  return `EXPR$${position}`;
}

function columnRef(scope: Scope, index: number): ScalarExpr {
  return Exprs.inputRef(index, scope.columns[index]!.type);
}

function project(input: LogicalNode, exprs: readonly ScalarExpr[], names: readonly string[]): BoundRelation {
  const schema: Field[] = exprs.map((e, i) => ({ name: names[i]!, type: e.type }));
  const identity = exprs.length === input.schema.length && exprs.every((e, i) => e.kind === 'input-ref' && e.index === i) && schema.every((f, i) => f.name === input.schema[i]!.name);
  if (identity) return { plan: input, schema: input.schema };
  return { plan: LogicalProject.create({ input, exprs, names }), schema };
}

function distinct(relation: BoundRelation): BoundRelation {
  const keys = relation.schema.map((_, i) => i);
  const plan: LogicalNode = LogicalAggregate.create({ input: relation.plan, keys, calls: [] });
  return { plan, schema: relation.schema };
}

/** An aggregate call collected while binding, before the pre-projection is final. */
interface PendingCall {
  readonly fingerprint: string;
  readonly call: AggregateCall;
}

function bindGrouped(query: SelectQuery, items: readonly OutputItem[], from: LogicalNode, fromScope: Scope, ctx: BinderContext): BoundRelation {
  const window = bindGroupWindow(query.groupBy, from, fromScope, ctx);
  const input = window?.plan ?? from;
  const scope = window?.scope ?? fromScope;
  const base: ExprBindContext = { scope, functions: ctx.functions, clause: 'GROUP BY' };
  const groupExprs: ScalarExpr[] = [];
  const groupNames: string[] = [];
  const keyOf = (expr: Expr): number => {
    if (containsAggregate(expr, ctx.functions)) {
      throw new WeirError('INVALID_ARGUMENT', 'aggregate functions are not allowed in GROUP BY', { span: expr.span });
    }
    const bound = bindExpr(expr, base);
    const existing = groupExprs.findIndex((g) => sameExpr(g, bound));
    if (existing >= 0) return existing;
    groupExprs.push(bound);
    groupNames.push(expr.kind === 'column-ref' ? expr.parts[expr.parts.length - 1]!.name : `$f${groupExprs.length - 1}`);
    return groupExprs.length - 1;
  };
  const sets = groupingSetsOf(window?.groupBy ?? query.groupBy, keyOf);
  if (sets !== undefined && window !== undefined) {
    const element = query.groupBy.find((e) => e.kind === 'grouping-sets')!;
    throw new WeirError('UNSUPPORTED', 'GROUPING SETS, ROLLUP and CUBE cannot be combined with a group window', {
      span: element.span,
      hint: 'aggregate over a window TVF instead: FROM TABLE(TUMBLE(...)) GROUP BY window_start, window_end, ROLLUP(...)',
    });
  }
  if (window !== undefined) {
    groupExprs.push(...window.keys);
    groupNames.push(...window.keyNames);
  }

  const preExprs: ScalarExpr[] = [...groupExprs];
  const pending: PendingCall[] = [];
  const indexOfPre = (expr: ScalarExpr): number => {
    const existing = preExprs.findIndex((e) => sameExpr(e, expr));
    if (existing >= 0) return existing;
    preExprs.push(expr);
    return preExprs.length - 1;
  };
  const onAggregate = (call: FunctionCall): ScalarExpr => {
    const call2 = bindAggregateCall(call, scope, ctx, indexOfPre);
    const fingerprint = JSON.stringify([call2.function, call2.args, call2.distinct, call2.filter]);
    let index = pending.findIndex((p) => p.fingerprint === fingerprint);
    if (index < 0) {
      pending.push({ fingerprint, call: { ...call2, name: `EXPR$${pending.length}` } });
      index = pending.length - 1;
    }
    return Exprs.inputRef(AGGREGATE_BASE + index, pending[index]!.call.type);
  };

  // GROUPING(k, ...), GROUP_ID(): bound as a placeholder reference, replaced over the aggregation's
  // output (args undefined for GROUP_ID).
  const groupingCalls: { readonly args: readonly number[] | undefined; readonly span: SourceSpan }[] = [];
  const onGrouping = (call: FunctionCall): ScalarExpr => {
    if (callName(call) === 'GROUP_ID') {
      if (call.args.length > 0) throw new WeirError('INVALID_ARGUMENT', 'GROUP_ID takes no arguments', { span: call.span });
      groupingCalls.push({ args: undefined, span: call.span });
      return Exprs.inputRef(GROUPING_BASE + groupingCalls.length - 1, SqlTypes.bigint(false));
    }
    if (call.args.length === 0) throw new WeirError('INVALID_ARGUMENT', `${callName(call)} needs at least one argument`, { span: call.span });
    const args = call.args.map((arg) => {
      if (arg.kind === 'star' || arg.kind === 'table-arg') throw new WeirError('INVALID_ARGUMENT', `${callName(call)} takes grouping expressions`, { span: arg.span });
      const bound = bindExpr(arg, base);
      const key = groupExprs.findIndex((g) => sameExpr(g, bound));
      if (key < 0) throw new WeirError('INVALID_ARGUMENT', `the arguments of ${callName(call)} must be expressions of the GROUP BY`, { span: arg.span });
      return key;
    });
    groupingCalls.push({ args, span: call.span });
    return Exprs.inputRef(GROUPING_BASE + groupingCalls.length - 1, SqlTypes.bigint(false));
  };
  // Subqueries of the SELECT list and HAVING are applied over the aggregate; they may correlate
  // with the grouping keys (outer columns become the aggregate's key columns).
  const scalars: PreparedScalar[] = [];
  const onSubquery = (subquery: ScalarSubquery): ScalarExpr => {
    const prepared = prepareScalar(subquery, scope, ctx);
    scalars.push(prepared);
    return Exprs.inputRef(SUBQUERY_BASE + scalars.length - 1, prepared.type);
  };
  const selectContext: ExprBindContext = { scope, functions: ctx.functions, clause: 'SELECT', onAggregate, onGrouping, onWindowProperty: window?.property, onSubquery };
  const boundItems = items.map((item) => ({
    item,
    expr: item.expr.kind === 'scope-column' ? columnRef(scope, item.expr.index) : bindExpr(item.expr, selectContext),
  }));
  const havingContext: ExprBindContext = { ...selectContext, clause: 'HAVING' };
  const havingConjuncts = query.having === undefined ? [] : astConjuncts(query.having);
  const havingPredicates: { prepared: PreparedPredicate; value: ScalarExpr | undefined; span: SourceSpan }[] = [];
  const havingPlain: Expr[] = [];
  for (const conjunct of havingConjuncts) {
    const predicate = containsSubquery(conjunct) ? subqueryPredicate(conjunct) : undefined;
    if (predicate === undefined || withoutGlobalHaving(predicate.core, ctx.functions) !== undefined) {
      havingPlain.push(conjunct);
      continue;
    }
    const prepared = preparePredicate(predicate, scope, ctx);
    const value = predicate.core.kind === 'exists' ? undefined : bindExpr(predicate.core.expr, havingContext);
    havingPredicates.push({ prepared, value, span: conjunct.span });
  }
  const havingExpr = andOf(havingPlain);
  const having = havingExpr === undefined ? undefined : bindExpr(havingExpr, havingContext);

  const keyCount = groupExprs.length;
  // With grouping sets, the aggregation's output has `$e` between the keys and the calls.
  const callBase = sets === undefined ? keyCount : keyCount + 1;
  const toAggregateOutput = (expr: ScalarExpr, span: SourceSpan, clause: string): ScalarExpr =>
    rewriteOverGroups(
      expr,
      groupExprs,
      (ref) => {
        if (ref.index >= SUBQUERY_BASE) return Exprs.inputRef(aggregateWidth + ref.index - SUBQUERY_BASE, ref.type);
        if (ref.index >= GROUPING_BASE) {
          const { args, span: callSpan } = groupingCalls[ref.index - GROUPING_BASE]!;
          const allSets = sets ?? [groupExprs.map((_, k) => k)];
          return args === undefined ? groupIdExpr(allSets, keyCount) : groupingExpr(allSets, args, keyCount, callSpan);
        }
        if (ref.index >= AGGREGATE_BASE) return Exprs.inputRef(callBase + ref.index - AGGREGATE_BASE, ref.type);
        const column = scope.columns[ref.index]!;
        throw new WeirError('INVALID_ARGUMENT', `column '${column.qualifier === undefined ? '' : column.qualifier + '.'}${column.name}' must appear in the GROUP BY clause or be used in an aggregate function`, {
          span,
          hint: `${clause} can only refer to grouped columns and aggregates`,
        });
      },
      sets !== undefined,
    );

  const preSchema: Field[] = preExprs.map((e, i) => ({ name: i < keyCount ? groupNames[i]! : `$f${i}`, type: e.type }));
  const pre: LogicalNode = LogicalProject.create({ input, exprs: preExprs, names: preSchema.map((f) => f.name) });
  const calls = pending.map((p) => p.call);
  let plan: LogicalNode =
    sets === undefined ? LogicalAggregate.create({ input: pre, keys: groupExprs.map((_, i) => i), calls }) : groupingSetsAggregate(pre, keyCount, sets, calls);
  // The aggregation's columns; the scalar subqueries' values follow them.
  const aggregateWidth = plan.schema.length;
  const scopeWidth = scope.columns.length;
  const outer: OuterColumns = {
    width: scopeWidth,
    toPlan: (conjunct, planWidth) =>
      rewriteOverGroups(
        conjunct,
        groupExprs,
        (ref) => {
          if (ref.index >= scopeWidth) return Exprs.inputRef(planWidth + ref.index - scopeWidth, ref.type);
          const column = scope.columns[ref.index]!;
          throw new WeirError('INVALID_ARGUMENT', `column '${column.qualifier === undefined ? '' : column.qualifier + '.'}${column.name}' must appear in the GROUP BY clause to be read by a subquery of the SELECT list or HAVING`, {
            hint: 'a subquery over a grouped query can only correlate with its grouping columns',
          });
        },
        sets !== undefined,
      ),
  };
  // Over the applies of subqueries the time attributes are materialized.
  const applied = scalars.length > 0 || havingPredicates.length > 0;
  const overApplies = (e: ScalarExpr): ScalarExpr => (applied ? materializedExpr(e) : e);
  for (const prepared of scalars) plan = attachScalar(plan, prepared, outer);

  const havingFilters: ScalarExpr[] = [];
  for (const { prepared, value, span } of havingPredicates) {
    const attached = attachPredicate(plan, prepared, value === undefined ? undefined : overApplies(toAggregateOutput(value, span, 'HAVING')), outer, ctx.functions);
    plan = attached.plan;
    if (attached.filter !== undefined) havingFilters.push(attached.filter);
  }
  if (having !== undefined) {
    const condition = overApplies(toAggregateOutput(having, havingExpr!.span, 'HAVING'));
    requireBoolean(condition, 'HAVING', havingExpr!.span);
    havingFilters.push(condition);
  }
  if (havingFilters.length > 0) {
    const condition = havingFilters.reduce((a, b) => Exprs.call('AND', [a, b], SqlTypes.boolean(a.type.nullable || b.type.nullable)));
    plan = LogicalFilter.create({ input: plan, condition });
  }
  const exprs = boundItems.map(({ item, expr }) => overApplies(toAggregateOutput(expr, item.span, 'SELECT')));
  return project(plan, exprs, items.map((i) => i.name));
}

/**
 * Replaces sub-expressions equal to a group key by a reference to it; other input references go
 * through `onInput`. With grouping sets (`nullableKeys`) a key reads as nullable, since the sets
 * that leave it out give it NULL, and an expression over such a key becomes nullable too.
 */
function rewriteOverGroups(expr: ScalarExpr, groups: readonly ScalarExpr[], onInput: (ref: Extract<ScalarExpr, { kind: 'input-ref' }>) => ScalarExpr, nullableKeys = false): ScalarExpr {
  const group = groups.findIndex((g) => sameExpr(g, expr));
  if (group >= 0) return Exprs.inputRef(group, nullableKeys ? withNullable(expr.type, true) : expr.type);
  const rewrite = (e: ScalarExpr): ScalarExpr => rewriteOverGroups(e, groups, onInput, nullableKeys);
  // The type of `expr` once some of its operands may be NULL where they were not.
  const widened = (before: readonly ScalarExpr[], after: readonly ScalarExpr[]): SqlType => (after.some((o, i) => o.type.nullable && !before[i]!.type.nullable) ? withNullable(expr.type, true) : expr.type);
  switch (expr.kind) {
    case 'input-ref':
      return onInput(expr);
    case 'literal':
      return expr;
    case 'call': {
      const args = expr.args.map(rewrite);
      return { ...expr, args, type: widened(expr.args, args) };
    }
    case 'field':
    case 'cast': {
      const operand = rewrite(expr.expr);
      return { ...expr, expr: operand, type: widened([expr.expr], [operand]) };
    }
    case 'case': {
      const whens = expr.whens.map(({ when, then }) => ({ when: rewrite(when), then: rewrite(then) }));
      const otherwise = rewrite(expr.else);
      return { ...expr, whens, else: otherwise, type: widened([...expr.whens.map((w) => w.then), expr.else], [...whens.map((w) => w.then), otherwise]) };
    }
  }
}

/** Structural equality of bound expressions. */
export function sameExpr(a: ScalarExpr, b: ScalarExpr): boolean {
  return stableJson(a) === stableJson(b);
}

function stableJson(expr: ScalarExpr): string {
  return JSON.stringify(expr, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
}

