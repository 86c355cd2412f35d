/**
 * Binds `left [NATURAL] [INNER | LEFT | RIGHT | FULL [OUTER] | CROSS] JOIN right [ON condition |
 * USING (columns)]` and the comma of a FROM list (a CROSS join; the WHERE of a FROM list becomes
 * the ON conditions of its joins, see bindCommaJoin). The join itself is planned from its
 * condition by plan/logical's join-condition.ts: equalities between the sides key it, time bounds
 * between rowtime attributes make an interval join, a condition without either (or none at all)
 * a nested loop.
 *
 * `USING (k)` joins on `l.k = r.k` and merges the two columns into one, listed first in `SELECT *`
 * (SQL's rule, as in PostgreSQL and Calcite): `l.k` for INNER and LEFT joins, `r.k` for RIGHT ones
 * and `COALESCE(l.k, r.k)` for FULL ones, converted to the type both compare as. Unqualified, `k`
 * names the merged column; `l.k` and `r.k` still name the inputs' own. `NATURAL` is USING every
 * column name both inputs have (none: a cross join).
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { JoinType } from '../../common/join-type.js';
import { SqlTypes, withNullable, type SqlType } from '../../common/sql-type.js';
import { Exprs, inputRefsOf, type ScalarExpr } from '../../expr/scalar-expr.js';
import { comparisonType } from '../../expr/type-coercion.js';
import { planJoin } from '../../plan/logical/join-condition.js';
import { type LogicalNode, LogicalProject } from '../../plan/logical/logical-node.js';
import type { Expr, Identifier, JoinRef, TableRef } from '../parse/ast.js';
import { requireBoolean } from './bind-aggregate-call.js';
import { isCorrelated } from './bind-correlate.js';
import { isLateralJoin } from './bind-lateral.js';
import { isTemporalJoin } from './bind-temporal-join.js';
import { bindExpr, castTo } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import { bindFrom, type BoundFrom } from './bind-query.js';
import { Scope, type ScopeColumn } from './scope.js';

/**
 * Binds a join of two bound FROM items. `where`, the WHERE over an inner join with ON (see
 * {@link bindJoinWhere}), is part of its condition.
 */
export function bindJoin(ref: JoinRef, left: BoundFrom, right: BoundFrom, ctx: BinderContext, where?: Expr): BoundFrom {
  const joinType: JoinType = ref.type === 'CROSS' ? 'INNER' : ref.type;
  const using = ref.natural === true ? naturalColumns(left.scope, right.scope, ref.span) : ref.using;
  if (using !== undefined) return bindUsingJoin(joinType, using, left, right, ctx);
  const scope = left.scope.concat(right.scope);
  const conjuncts: ScalarExpr[] = [];
  for (const [expr, clause] of [[ref.on, 'ON'], [where, 'WHERE']] as const) {
    if (expr === undefined) continue;
    const condition = bindExpr(expr, { scope, functions: ctx.functions, clause });
    requireBoolean(condition, clause, expr.span);
    conjuncts.push(condition);
  }
  const plan = planJoin(joinType, left.plan, right.plan, conjunctionOf(conjuncts), ctx.functions);
  return { plan, scope: typedBy(scope, plan) };
}

/**
 * `FROM l [INNER] JOIN r ON c WHERE w` (no USING, NATURAL, LATERAL, temporal or correlated right
 * side): the join on `c AND w`, as Flink's FilterIntoJoinRule moves the WHERE into the join before
 * its time attributes are materialized, so that time bounds in the WHERE make an interval join
 * (which keeps them) and the columns read after the WHERE are typed as the join outputs them.
 * Undefined when FROM is not such a join.
 */
export function bindJoinWhere(from: TableRef, where: Expr, ctx: BinderContext): BoundFrom | undefined {
  if (from.kind !== 'join' || from.type !== 'INNER' || from.on === undefined || from.natural === true || from.using !== undefined) return undefined;
  if (isLateralJoin(from) || isCorrelated(from.right) || isTemporalJoin(from)) return undefined;
  return bindJoin(from, bindFrom(from.left, ctx), bindFrom(from.right, ctx), ctx, where);
}

/**
 * `FROM a, b, c WHERE condition` (commas or CROSS JOINs at the top of FROM): each conjunct of the
 * WHERE becomes part of the ON condition of the first join that has all the columns it reads
 * (one reading nothing, of the last), as Flink's FilterIntoJoinRule moves it, so that its
 * equalities key the joins already in the bound plan (whose unique keys a materialized view's
 * primary key is derived from). Undefined when FROM is not such a list. A list of two whose second
 * item is `t FOR SYSTEM_TIME AS OF ...` is a temporal join on the WHERE condition.
 */
export function bindCommaJoin(from: TableRef, where: Expr, ctx: BinderContext): BoundFrom | undefined {
  if (from.kind !== 'join' || from.type !== 'CROSS') return undefined;
  const items: TableRef[] = [];
  let node: TableRef = from;
  for (; node.kind === 'join' && node.type === 'CROSS'; node = node.left) items.unshift(node.right);
  items.unshift(node);
  // `FROM t, UNNEST(t.tags)`, `FROM t, LATERAL (...)`: an item reading the columns to its left is bound as a join tree.
  if (items.some((item) => isCorrelated(item) || (item.kind === 'derived-table' && item.lateral))) return undefined;
  if (items.length === 2 && items[1]!.kind === 'named-table' && items[1]!.forSystemTimeAsOf !== undefined) return bindFrom({ ...from, type: 'INNER', on: where }, ctx);
  const bound = items.map((item) => bindFrom(item, ctx));
  const scope = bound.slice(1).reduce((all, item) => all.concat(item.scope), bound[0]!.scope);
  const condition = bindExpr(where, { scope, functions: ctx.functions, clause: 'WHERE' });
  requireBoolean(condition, 'WHERE', where.span);
  let remaining = conjunctsOf(condition);
  let joined = bound[0]!;
  for (const [i, item] of bound.slice(1).entries()) {
    const width = joined.scope.columns.length + item.scope.columns.length;
    const last = i === bound.length - 2;
    const here = remaining.filter((c) => (last ? true : inputRefsOf(c).length > 0 && inputRefsOf(c).every((r) => r < width)));
    remaining = remaining.filter((c) => !here.includes(c));
    const plan = planJoin('INNER', joined.plan, item.plan, conjunctionOf(here), ctx.functions);
    // A regular join's output has no time attributes (see planJoin): the scope reads its types.
    joined = { plan, scope: typedBy(joined.scope.concat(item.scope), plan) };
  }
  return joined;
}

function conjunctsOf(condition: ScalarExpr): ScalarExpr[] {
  return condition.kind === 'call' && condition.name === 'AND' ? condition.args.flatMap(conjunctsOf) : [condition];
}

/** The USING columns of a NATURAL join: the names of the left input's columns that the right input has too. */
function naturalColumns(left: Scope, right: Scope, span: SourceSpan): Identifier[] {
  const names = (scope: Scope): string[] => scope.columns.filter((c) => c.merged !== true).map((c) => c.name);
  const rightNames = new Set(names(right));
  return [...new Set(names(left).filter((n) => rightNames.has(n)))].map((name) => ({ kind: 'identifier', name, quoted: true, span }));
}

/** A join `USING (columns)`: the equalities of same-named columns, and each pair merged into one column in front. */
function bindUsingJoin(joinType: JoinType, using: readonly Identifier[], left: BoundFrom, right: BoundFrom, ctx: BinderContext): BoundFrom {
  const width = left.scope.columns.length;
  const seen = new Set<string>();
  const pairs = using.map((column) => {
    if (seen.has(column.name.toLowerCase())) throw new WeirError('INVALID_ARGUMENT', `column '${column.name}' appears more than once in USING`, { span: column.span });
    seen.add(column.name.toLowerCase());
    const l = left.scope.resolve([column], column.span);
    const r = right.scope.resolve([column], column.span);
    if (l.kind !== 'input-ref' || r.kind !== 'input-ref') throw new WeirError('INTERNAL_ERROR', `USING column '${column.name}' did not resolve to a column`);
    const type = comparisonType(l.type, r.type);
    if (type === undefined) {
      throw new WeirError('TYPE_MISMATCH', `the USING column '${column.name}' is ${l.type.kind} on the left and ${r.type.kind} on the right, which do not compare`, { span: column.span });
    }
    return { name: left.scope.columns[l.index]!.name, left: l.index, right: r.index, type };
  });
  const equalities = pairs.map((p) => {
    const l = castTo(Exprs.inputRef(p.left, left.plan.schema[p.left]!.type), p.type);
    const r = castTo(Exprs.inputRef(width + p.right, right.plan.schema[p.right]!.type), p.type);
    return Exprs.call('=', [l, r], SqlTypes.boolean(l.type.nullable || r.type.nullable));
  });
  const condition = conjunctionOf(equalities);
  const joined = planJoin(joinType, left.plan, right.plan, condition, ctx.functions);
  const output = joined.schema;
  const column = (index: number, type: SqlType): ScalarExpr => castTo(Exprs.inputRef(index, output[index]!.type), type);
  const merged = pairs.map((p): ScalarExpr => {
    const l = column(p.left, p.type);
    const r = column(width + p.right, p.type);
    if (joinType === 'INNER' || joinType === 'LEFT') return l;
    if (joinType === 'RIGHT') return r;
    return Exprs.call('COALESCE', [l, r], withNullable(p.type, l.type.nullable && r.type.nullable));
  });
  const exprs = [...merged, ...output.map((f, i) => Exprs.inputRef(i, f.type))];
  const schema = [...pairs.map((p, i) => ({ name: p.name, type: merged[i]!.type })), ...output];
  const plan: LogicalNode = LogicalProject.create({ input: joined, exprs, names: schema.map((f) => f.name) });
  const hide = (columns: readonly ScopeColumn[], used: ReadonlySet<number>, offset: number): ScopeColumn[] =>
    columns.map((c, i) => ({ ...c, type: output[offset + i]!.type, ...(used.has(i) ? { merged: true as const } : {}) }));
  const columns: ScopeColumn[] = [
    ...pairs.map((p, i) => ({ qualifier: undefined, name: p.name, type: merged[i]!.type })),
    ...hide(left.scope.columns, new Set(pairs.map((p) => p.left)), 0),
    ...hide(right.scope.columns, new Set(pairs.map((p) => p.right)), width),
  ];
  return { plan, scope: new Scope(columns) };
}

/** The AND of the conjuncts (nullable), or null for none: a join without condition. */
function conjunctionOf(conjuncts: readonly ScalarExpr[]): ScalarExpr | null {
  return conjuncts.length === 0 ? null : conjuncts.reduce((a, b) => Exprs.call('AND', [a, b], SqlTypes.boolean()));
}

/** The scope's columns typed as the join's output has them (nullable where NULL-padded, time attributes materialized). */
function typedBy(scope: Scope, plan: LogicalNode): Scope {
  return new Scope(scope.columns.map((c, i) => ({ ...c, type: plan.schema[i]!.type })));
}
