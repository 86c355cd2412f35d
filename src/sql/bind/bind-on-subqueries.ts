/**
 * Subqueries in the ON of a join, rewritten to where weir plans them. A subquery is planned as a
 * condition of a WHERE (a semi or anti join, or a scalar subquery's join) over the relation it
 * filters, so:
 * - a conjunct of the ON of an inner or cross join whose rows reach the FROM's result as they are
 *   (not below the null-supplying side of an outer join) moves into the block's WHERE, where it
 *   filters the same rows: `FROM a JOIN b ON a.k = b.k AND b.x IN (SELECT ...)` is
 *   `FROM a JOIN b ON a.k = b.k WHERE b.x IN (SELECT ...)`;
 * - a conjunct of the ON of a LEFT (RIGHT) join that reads only the null-supplying side, a table
 *   or derived table with a name, filters that side before the join: `a LEFT JOIN b ON a.k = b.k
 *   AND b.x IN (SELECT ...)` is `a LEFT JOIN (SELECT * FROM b WHERE b.x IN (SELECT ...)) AS b ON
 *   a.k = b.k` — a row of `b` failing it meets no row of `a`, exactly as in the ON.
 * Any other subquery of an ON is left where it is (and refused by the binder, saying where).
 */
import type { Expr, Identifier, JoinRef, SelectQuery, TableRef } from '../parse/ast.js';
import { visitExpr } from './bind-expr.js';
import { andOf, astConjuncts, containsSubquery } from './bind-subquery.js';

/** `query` with the subqueries of its joins' ON moved as the module comment says; `query` itself when there are none to move. */
export function withOnSubqueriesMoved(query: SelectQuery): SelectQuery {
  if (query.from === undefined || !hasOnSubquery(query.from)) return query;
  return withOnConjunctsMoved(query, containsSubquery, true);
}

/**
 * `query` with the conjuncts of its joins' ON that `moves` selects moved into its WHERE, from every
 * inner or cross join whose rows reach the FROM's result as they are (not below the null-supplying
 * side of an outer join); with `filterJoinedSide`, a selected conjunct of a LEFT (RIGHT) join's ON
 * that reads only the joined side filters that side instead (see the module comment). Any other
 * stays where it is. `query` itself when nothing moved.
 */
export function withOnConjunctsMoved(query: SelectQuery, moves: (conjunct: Expr) => boolean, filterJoinedSide: boolean): SelectQuery {
  if (query.from === undefined) return query;
  const toWhere: Expr[] = [];
  const rewrite = (ref: TableRef, reachesResult: boolean): TableRef => {
    if (ref.kind !== 'join') return ref;
    let { left, right, on } = ref;
    const inner = ref.type === 'INNER' || ref.type === 'CROSS';
    left = rewrite(left, reachesResult && (inner || ref.type === 'LEFT'));
    right = rewrite(right, reachesResult && (inner || ref.type === 'RIGHT'));
    if (on !== undefined) {
      const conjuncts = astConjuncts(on);
      const kept: Expr[] = [];
      const filters: Expr[] = [];
      for (const conjunct of conjuncts) {
        if (!moves(conjunct)) kept.push(conjunct);
        else if (inner && reachesResult) toWhere.push(conjunct);
        else if (filterJoinedSide && ref.type === 'LEFT' && readsOnly(conjunct, right, left)) filters.push(conjunct);
        else if (filterJoinedSide && ref.type === 'RIGHT' && readsOnly(conjunct, left, right)) filters.push(conjunct);
        else kept.push(conjunct);
      }
      if (filters.length > 0) {
        if (ref.type === 'LEFT') right = filtered(right, filters);
        else left = filtered(left, filters);
      }
      if (kept.length < conjuncts.length) on = andOf(kept) ?? { kind: 'literal', span: on.span, type: 'boolean', value: true };
    }
    return left === ref.left && right === ref.right && on === ref.on ? ref : ({ ...ref, left, right, ...(on === undefined ? {} : { on }) } satisfies JoinRef);
  };
  const from = rewrite(query.from, true);
  if (from === query.from) return query;
  const where = andOf([...(query.where === undefined ? [] : [query.where]), ...toWhere]);
  return { ...query, from, ...(where === undefined ? {} : { where }) };
}

function hasOnSubquery(ref: TableRef): boolean {
  return ref.kind === 'join' && ((ref.on !== undefined && containsSubquery(ref.on)) || hasOnSubquery(ref.left) || hasOnSubquery(ref.right));
}

/** The name a table or derived table is read by (its alias, or a table's last name part); undefined for anything else. */
function nameOf(ref: TableRef): Identifier | undefined {
  // (A versioned table of a temporal join is joined as it was at the row's time: it stays as written.)
  if (ref.kind === 'named-table') return ref.forSystemTimeAsOf === undefined ? (ref.alias ?? ref.name.parts[ref.name.parts.length - 1]) : undefined;
  if (ref.kind === 'derived-table' && !ref.lateral) return ref.alias;
  return undefined;
}

/**
 * Whether `conjunct` reads `side` only: every column it reads outside its subqueries is qualified
 * by `side`'s name (`b.x`), and none anywhere in it (its subqueries too) by a name of `other`.
 */
function readsOnly(conjunct: Expr, side: TableRef, other: TableRef): boolean {
  const name = nameOf(side)?.name.toLowerCase();
  if (name === undefined) return false;
  let only = true;
  visitExpr(conjunct, (e) => {
    if (e.kind === 'column-ref' && (e.parts.length !== 2 || e.parts[0]!.name.toLowerCase() !== name)) only = false;
  });
  const others = new Set(namesIn(other));
  return only && !qualifiersIn(conjunct).some((q) => others.has(q));
}

/** The names the tables of a FROM subtree are read by, lower-cased. */
function namesIn(ref: TableRef): string[] {
  if (ref.kind === 'join') return [...namesIn(ref.left), ...namesIn(ref.right)];
  const name = ref.kind === 'named-table' ? (ref.alias ?? ref.name.parts[ref.name.parts.length - 1]) : 'alias' in ref ? ref.alias : undefined;
  return name === undefined ? [] : [name.name.toLowerCase()];
}

/** The qualifiers of the qualified column references anywhere in `node`, its subqueries included, lower-cased. */
function qualifiersIn(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap(qualifiersIn);
  const record = node as Record<string, unknown>;
  if (record.kind === 'column-ref') {
    const parts = record.parts as readonly Identifier[];
    return parts.length >= 2 ? [parts[parts.length - 2]!.name.toLowerCase()] : [];
  }
  return Object.entries(record).flatMap(([key, value]) => (key === 'span' ? [] : qualifiersIn(value)));
}

/** `(SELECT * FROM side WHERE filters) AS name`, read by the same name as `side`. */
function filtered(side: TableRef, filters: readonly Expr[]): TableRef {
  const alias = nameOf(side)!;
  const span = side.span;
  const query: SelectQuery = {
    kind: 'select',
    span,
    distinct: false,
    items: [{ kind: 'select-star', span, qualifier: [] }],
    from: side,
    where: andOf(filters),
    groupBy: [],
    windows: [],
    orderBy: [],
  };
  return { kind: 'derived-table', span, query, alias, lateral: false };
}
