/**
 * The relations a query reads by name — tables, views and materialized views — found in its FROM
 * clauses, its subqueries (in expressions too) and its CTEs, with CTE names resolved to the CTEs
 * rather than to the catalog. A view depends on the relations its query reads: DROP refuses to
 * drop one that another view depends on (CASCADE drops the dependents), so that no view is left
 * reading a relation that is gone.
 */
import type { Expr, FunctionCall, Query, TableArg, TableRef } from '../parse/ast.js';

/** The names (as written, last part only: weir has one database) of the relations `query` reads, without duplicates. */
export function relationsReferenced(query: Query): string[] {
  const found = new Set<string>();
  visitQuery(query, new Set(), found);
  return [...found];
}

function visitQuery(query: Query, ctes: ReadonlySet<string>, found: Set<string>): void {
  switch (query.kind) {
    case 'select': {
      if (query.from !== undefined) visitTable(query.from, ctes, found);
      for (const item of query.items) if (item.kind === 'select-expr') visitExpr(item.expr, ctes, found);
      if (query.where !== undefined) visitExpr(query.where, ctes, found);
      if (query.having !== undefined) visitExpr(query.having, ctes, found);
      for (const element of query.groupBy) {
        if (element.kind === 'group-expr') visitExpr(element.expr, ctes, found);
        else for (const set of element.sets) for (const expr of set) visitExpr(expr, ctes, found);
      }
      for (const item of query.orderBy) visitExpr(item.expr, ctes, found);
      return;
    }
    case 'set-operation':
      visitQuery(query.left, ctes, found);
      visitQuery(query.right, ctes, found);
      return;
    case 'values':
      for (const row of query.rows) for (const expr of row) visitExpr(expr, ctes, found);
      return;
    case 'with': {
      const scope = new Set(ctes);
      for (const cte of query.ctes) {
        visitQuery(cte.query, scope, found);
        scope.add(cte.name.name);
      }
      visitQuery(query.body, scope, found);
      return;
    }
  }
}

function visitTable(ref: TableRef, ctes: ReadonlySet<string>, found: Set<string>): void {
  switch (ref.kind) {
    case 'named-table': {
      const parts = ref.name.parts;
      const name = parts[parts.length - 1]!.name;
      if (!(parts.length === 1 && ctes.has(name))) found.add(name);
      if (ref.forSystemTimeAsOf !== undefined) visitExpr(ref.forSystemTimeAsOf, ctes, found);
      return;
    }
    case 'derived-table':
      visitQuery(ref.query, ctes, found);
      return;
    case 'join':
      visitTable(ref.left, ctes, found);
      visitTable(ref.right, ctes, found);
      if (ref.on !== undefined) visitExpr(ref.on, ctes, found);
      return;
    case 'table-function':
      visitCall(ref.call, ctes, found);
      return;
    case 'unnest':
      for (const expr of [ref.expr, ...ref.others]) visitExpr(expr, ctes, found);
      return;
  }
}

function visitCall(call: FunctionCall, ctes: ReadonlySet<string>, found: Set<string>): void {
  for (const arg of call.args) {
    if (arg.kind === 'table-arg') visitTableArg(arg, ctes, found);
    else visitExpr(arg, ctes, found);
  }
  if (call.filter !== undefined) visitExpr(call.filter, ctes, found);
}

function visitTableArg(arg: TableArg, ctes: ReadonlySet<string>, found: Set<string>): void {
  const parts = arg.name.parts;
  const name = parts[parts.length - 1]!.name;
  if (!(parts.length === 1 && ctes.has(name))) found.add(name);
}

function visitExpr(expr: Expr, ctes: ReadonlySet<string>, found: Set<string>): void {
  switch (expr.kind) {
    case 'column-ref':
    case 'literal':
    case 'interval':
    case 'typed-literal':
    case 'star':
      return;
    case 'unary':
      visitExpr(expr.operand, ctes, found);
      return;
    case 'binary':
      visitExpr(expr.left, ctes, found);
      visitExpr(expr.right, ctes, found);
      return;
    case 'call':
      visitCall(expr, ctes, found);
      return;
    case 'case':
      if (expr.operand !== undefined) visitExpr(expr.operand, ctes, found);
      for (const { when, then } of expr.whens) {
        visitExpr(when, ctes, found);
        visitExpr(then, ctes, found);
      }
      if (expr.else !== undefined) visitExpr(expr.else, ctes, found);
      return;
    case 'cast':
    case 'field-access':
      visitExpr(expr.expr, ctes, found);
      return;
    case 'between':
      for (const e of [expr.expr, expr.low, expr.high]) visitExpr(e, ctes, found);
      return;
    case 'in-list':
      for (const e of [expr.expr, ...expr.list]) visitExpr(e, ctes, found);
      return;
    case 'in-subquery':
    case 'quantified':
      visitExpr(expr.expr, ctes, found);
      visitQuery(expr.query, ctes, found);
      return;
    case 'exists':
    case 'scalar-subquery':
      visitQuery(expr.query, ctes, found);
      return;
    case 'like':
      for (const e of [expr.expr, expr.pattern, ...(expr.escape === undefined ? [] : [expr.escape])]) visitExpr(e, ctes, found);
      return;
    case 'is':
      visitExpr(expr.expr, ctes, found);
      return;
    case 'item-access':
      visitExpr(expr.expr, ctes, found);
      visitExpr(expr.index, ctes, found);
      return;
  }
}
