/**
 * `left [CROSS | INNER | LEFT] JOIN LATERAL (query) [AS] s [(c1, ...)] [ON cond]` (a comma too):
 * a derived table whose WHERE reads the columns of the FROM items to its left, decorrelated into a
 * join with them (see joinLateral in bind-subquery.ts). The join is a regular one, so the time
 * attributes of the left items are materialized first (as in Flink). RIGHT and FULL joins, USING
 * and NATURAL are refused (PostgreSQL refuses a RIGHT or FULL join with a LATERAL item too).
 */
import { WeirError } from '../../common/errors.js';
import type { Field } from '../../common/schema.js';
import { SqlTypes, withNullable, withoutTimeAttribute } from '../../common/sql-type.js';
import { Exprs, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { planJoin } from '../../plan/logical/join-condition.js';
import { LogicalProject, LogicalValues, type LogicalNode } from '../../plan/logical/logical-node.js';
import type { DerivedTable, JoinRef, Query } from '../parse/ast.js';
import { requireBoolean } from './bind-aggregate-call.js';
import { bindExpr, containsAggregate } from './bind-expr.js';
import { bindFrom, type BoundFrom } from './bind-query.js';
import { windowCalls } from './bind-rank.js';
import { conjunction, containsSubquery, joinLateral, materializeRelation, plainValue, type LateralJoin } from './bind-subquery.js';
import type { BinderContext } from './binder-context.js';
import { Scope } from './scope.js';

/** Whether a join's right side is a `LATERAL (query)` derived table. */
export function isLateralJoin(ref: JoinRef): ref is JoinRef & { readonly right: DerivedTable } {
  return ref.right.kind === 'derived-table' && ref.right.lateral;
}

/** Binds `left <join> LATERAL (query) s` over the bound left side (see the module comment). */
export function bindLateralJoin(ref: JoinRef & { readonly right: DerivedTable }, left: BoundFrom, ctx: BinderContext): BoundFrom {
  const right = ref.right;
  if (ref.natural === true || ref.using !== undefined) {
    throw new WeirError('UNSUPPORTED', 'a join with a LATERAL subquery takes ON, not USING or NATURAL', { span: ref.span, hint: 'write CROSS JOIN LATERAL (...), or [LEFT] JOIN LATERAL (...) ON TRUE' });
  }
  if (ref.type === 'RIGHT' || ref.type === 'FULL') {
    throw new WeirError('UNSUPPORTED', `a ${ref.type} JOIN with a LATERAL subquery is not supported (PostgreSQL refuses it too)`, {
      span: ref.span,
      hint: 'its rows are computed from each row to its left: write CROSS JOIN LATERAL, or LEFT JOIN LATERAL (...) ON TRUE to keep rows that give none',
    });
  }
  const outer = materializeRelation(left);
  const alias = right.alias?.name;
  const scopeOf = (columns: readonly Field[]): Scope => {
    const names = right.columnAliases?.map((c) => c.name);
    if (names !== undefined && names.length !== columns.length) {
      throw new WeirError('INVALID_ARGUMENT', `${names.length} column names given for a relation with ${columns.length} columns`, { span: right.span });
    }
    return Scope.of(columns.map((c, i) => ({ name: names?.[i] ?? c.name, type: c.type })), alias);
  };
  const bindOn = (columns: readonly Field[]): ScalarExpr | null => {
    if (ref.on === undefined) return null;
    const condition = bindExpr(ref.on, { scope: outer.scope.concat(scopeOf(columns)), functions: ctx.functions, clause: 'ON' });
    requireBoolean(condition, 'ON', ref.on.span);
    return condition;
  };
  const joinType = ref.type === 'LEFT' ? 'LEFT' : 'INNER';
  const joined = joinRowsLateral(outer, right.query, joinType, bindOn, ctx) ?? joinLateral(outer, right.query, joinType, bindOn, ctx, right.span);
  return { plan: joined.plan, scope: outer.scope.concat(scopeOf(joined.columns)) };
}

/**
 * A LATERAL query that only selects, filters and projects (no aggregate, GROUP BY, DISTINCT,
 * window function, LIMIT or subquery): the join of `left` with its FROM on its WHERE (which may
 * read `left` anywhere), its select list computed over the joined row, so that it too may read
 * `left` (`LATERAL (SELECT t.x * u.v FROM u WHERE u.k = t.k)`). In a LEFT join a left row that
 * meets no row gets NULLs (a marker tells them apart from computed values). Undefined for other
 * queries.
 */
function joinRowsLateral(left: { readonly plan: LogicalNode; readonly scope: Scope }, query: Query, joinType: 'INNER' | 'LEFT', bindOn: (columns: readonly Field[]) => ScalarExpr | null, ctx: BinderContext): LateralJoin | undefined {
  if (query.kind !== 'select' || query.distinct || query.groupBy.length > 0 || query.having !== undefined || query.limit !== undefined || query.offset !== undefined) return undefined;
  const exprs = query.items.flatMap((i) => (i.kind === 'select-expr' ? [i.expr] : []));
  if (exprs.some((e) => containsAggregate(e, ctx.functions) || containsSubquery(e) || windowCalls([e]).length > 0) || containsSubquery(query.where)) return undefined;
  const inner = query.from === undefined ? { plan: LogicalValues.create({ rows: [[]], columns: [] }) as LogicalNode, scope: new Scope([]) } : bindFrom(query.from, ctx);
  const width = left.plan.schema.length;
  const bool = SqlTypes.boolean(false);
  // (A LEFT join's right side carries a marker after its columns.)
  const marked: LogicalNode =
    joinType === 'INNER' ? inner.plan : LogicalProject.create({ input: inner.plan, exprs: [...inner.plan.schema.map((f, i) => Exprs.inputRef(i, f.type)), Exprs.literal(true, bool)], names: [...inner.plan.schema.map((f) => f.name), '$matched'] });
  const scope = left.scope.concat(inner.scope);
  const context = { scope, functions: ctx.functions, clause: 'SELECT' as const };
  const items: { expr: ScalarExpr; name: string }[] = query.items.flatMap((item, position) => {
    if (item.kind === 'select-star') {
      const qualifier = item.qualifier.length === 0 ? undefined : item.qualifier[item.qualifier.length - 1]!.name;
      return inner.scope.columnsOf(qualifier, item.span).map((i) => ({ expr: Exprs.inputRef(width + i, inner.scope.columns[i]!.type), name: inner.scope.columns[i]!.name }));
    }
    const name = item.alias?.name ?? (item.expr.kind === 'column-ref' ? item.expr.parts[item.expr.parts.length - 1]!.name : `EXPR$${position}`);
    return [{ expr: bindExpr(item.expr, context), name }];
  });
  let where: ScalarExpr | null = null;
  if (query.where !== undefined) {
    where = bindExpr(query.where, { ...context, clause: 'WHERE' });
    requireBoolean(where, 'WHERE', query.where.span);
  }
  const fields = items.map((item) => ({ name: item.name, type: withoutTimeAttribute(joinType === 'LEFT' ? withNullable(item.expr.type, true) : item.expr.type) }));
  // ON reads the LATERAL's columns: their expressions over the joined row.
  const on = bindOn(fields);
  const onJoined = on === null || (on.kind === 'literal' && on.value === true) ? null : remapInputs(on, (ref) => (ref.index < width ? ref : items[ref.index - width]!.expr));
  const conjuncts = [where, onJoined].filter((c): c is ScalarExpr => c !== null);
  const condition = conjunction(conjuncts);
  const joined = planJoin(joinType, left.plan, marked, condition, ctx.functions);
  // Over the join's output (its columns as the join types them: nullable on a LEFT join's right side).
  const retyped = (e: ScalarExpr): ScalarExpr => remapInputs(e, (ref) => Exprs.inputRef(ref.index, joined.schema[ref.index]!.type));
  const matched = Exprs.call('IS NOT NULL', [Exprs.inputRef(width + inner.plan.schema.length, SqlTypes.boolean(true))], bool);
  const values = items.map((item, i): ScalarExpr => {
    const value = retyped(item.expr);
    const type = fields[i]!.type;
    const plain = plainValue(value);
    return joinType === 'LEFT' ? { kind: 'case', whens: [{ when: matched, then: plain }], else: Exprs.literal(null, type), type } : plain;
  });
  const leftColumns = left.plan.schema.map((_, i) => Exprs.inputRef(i, withoutTimeAttribute(joined.schema[i]!.type)));
  const plan = LogicalProject.create({ input: joined, exprs: [...leftColumns, ...values], names: [...left.plan.schema.map((f) => f.name), ...fields.map((f) => f.name)] });
  return { plan, columns: plan.schema.slice(width) };
}
