/**
 * OVER calls in a grouped SELECT (`RANK() OVER (PARTITION BY cat ORDER BY SUM(x))`,
 * `SUM(SUM(x)) OVER (PARTITION BY cat)`): window functions are evaluated after the grouping, over
 * its rows, as in Flink (Calcite projects the aggregate, then the window). The select is rewritten
 * into two: an inner grouped SELECT computing every aggregate, GROUPING() call, grouping
 * expression and grouped column the select list, WINDOW clause and ORDER BY read (each as a
 * column `$g<n>`), and an outer SELECT over it holding the window calls, DISTINCT, ORDER BY and
 * LIMIT. The inner keeps FROM, WHERE, GROUP BY and HAVING, so its errors are the grouped ones.
 */
import type { FunctionRegistry } from '../../expr/function-registry.js';
import type { Expr, FunctionCall, Identifier, OrderItem, SelectQuery, WindowSpec } from '../parse/ast.js';
import { callName, containsAggregate, GROUP_WINDOW_PROPERTY, GROUPING_FUNCTIONS, visitExpr } from './bind-expr.js';
import { windowCalls } from './bind-rank.js';

/** Prefix of the inner select's columns (a quoted name a query would not write). */
const LIFTED_PREFIX = '$g';

/**
 * The two-level select equivalent to `query` when it groups (GROUP BY, HAVING or an aggregate in
 * its select list) and its select list calls a window function; undefined otherwise (or when the
 * select list has a `*`, which a grouped select cannot expand anyway).
 */
export function splitGroupedOver(query: SelectQuery, functions: FunctionRegistry): SelectQuery | undefined {
  const exprs: Expr[] = [];
  for (const item of query.items) {
    if (item.kind === 'select-star') return undefined;
    exprs.push(item.expr);
  }
  if (windowCalls(exprs).length === 0) return undefined;
  const grouped = query.groupBy.length > 0 || query.having !== undefined || exprs.some((e) => containsAggregate(e, functions));
  if (!grouped) return undefined;

  const groupKeys = new Set<string>();
  for (const element of query.groupBy) {
    if (element.kind === 'group-expr') groupKeys.add(fingerprint(element.expr));
    else for (const set of element.sets) for (const e of set) groupKeys.add(fingerprint(e));
  }
  const lifted: { readonly key: string; readonly expr: Expr }[] = [];
  const lift = (expr: Expr): Expr => {
    const key = fingerprint(expr);
    let index = lifted.findIndex((l) => l.key === key);
    if (index < 0) {
      lifted.push({ key, expr });
      index = lifted.length - 1;
    }
    return { kind: 'column-ref', span: expr.span, parts: [identifier(`${LIFTED_PREFIX}${index}`, expr)] };
  };
  const isLeaf = (expr: Expr): boolean => {
    if (groupKeys.has(fingerprint(expr))) return true;
    switch (expr.kind) {
      case 'column-ref':
      case 'scalar-subquery':
      case 'exists':
      case 'in-subquery':
      case 'quantified':
        return true;
      case 'call':
        if (expr.over !== undefined) return false;
        // (TUMBLE_START(...) and the like are the group window's, computed by the grouping.)
        return GROUPING_FUNCTIONS.has(callName(expr)) || GROUP_WINDOW_PROPERTY.test(callName(expr)) || functions.lookup(callName(expr))?.kind === 'aggregate';
      case 'literal':
      case 'interval':
      case 'typed-literal':
      case 'unary':
      case 'binary':
      case 'case':
      case 'cast':
      case 'between':
      case 'in-list':
      case 'like':
      case 'is':
      case 'field-access':
      case 'item-access':
      case 'star':
        return false;
      default: {
        const unknown: never = expr;
        return unknown;
      }
    }
  };
  const rewrite = (expr: Expr): Expr => (isLeaf(expr) ? lift(expr) : mapChildren(expr, rewrite, rewriteSpec));
  const rewriteSpec = (spec: WindowSpec): WindowSpec => ({ ...spec, partitionBy: spec.partitionBy.map(rewrite), orderBy: spec.orderBy.map((o) => ({ ...o, expr: rewrite(o.expr) })) });

  const names = query.items.map((item, position) => (item.kind === 'select-expr' ? (item.alias?.name ?? implicitName(item.expr, position)) : ''));
  const outerItems = query.items.map((item, i) => {
    if (item.kind === 'select-star') return item;
    const alias: Identifier = item.alias ?? identifier(names[i]!, item.expr);
    return { ...item, expr: rewrite(item.expr), alias };
  });
  const windows = query.windows.map((w) => ({ ...w, spec: rewriteSpec(w.spec) }));
  // ORDER BY a position or an expression of output names stays; anything else reads the inner select.
  const outputNames = new Set(names.map((n) => n.toLowerCase()));
  const keepsOrder = (item: OrderItem): boolean => (item.expr.kind === 'literal' && item.expr.type === 'number') || readsOnlyOutput(item.expr);
  const readsOnlyOutput = (expr: Expr): boolean => {
    let only = true;
    visitExpr(expr, (e) => {
      if (e.kind === 'column-ref' && (e.parts.length !== 1 || !outputNames.has(e.parts[0]!.name.toLowerCase()))) only = false;
      if (e.kind === 'call' && (e.over !== undefined || GROUPING_FUNCTIONS.has(callName(e)) || GROUP_WINDOW_PROPERTY.test(callName(e)) || functions.lookup(callName(e))?.kind === 'aggregate')) only = false;
      if (e.kind === 'scalar-subquery' || e.kind === 'exists' || e.kind === 'in-subquery' || e.kind === 'quantified') only = false;
    });
    return only;
  };
  const orderBy = query.orderBy.map((item) => (keepsOrder(item) ? item : { ...item, expr: rewrite(item.expr) }));

  const innerItems = lifted.map(({ expr }, i) => ({ kind: 'select-expr' as const, span: expr.span, expr, alias: identifier(`${LIFTED_PREFIX}${i}`, expr) }));
  const inner: SelectQuery = { ...query, items: innerItems, windows: [], orderBy: [], limit: undefined, offset: undefined, distinct: false };
  return {
    kind: 'select',
    span: query.span,
    distinct: query.distinct,
    items: outerItems,
    from: { kind: 'derived-table', span: query.span, query: inner, alias: identifier(`${LIFTED_PREFIX}rouped`, query), lateral: false },
    groupBy: [],
    windows,
    orderBy,
    limit: query.limit,
    offset: query.offset,
  };
}

function identifier(name: string, at: { readonly span: Expr['span'] }): Identifier {
  return { kind: 'identifier', name, quoted: true, span: at.span };
}

/** Flink's naming of an unaliased select item (as bind-select.ts names it). */
function implicitName(expr: Expr, position: number): string {
  if (expr.kind === 'column-ref') return expr.parts[expr.parts.length - 1]!.name;
  if (expr.kind === 'field-access') return expr.field.name;
  return `EXPR$${position}`;
}

/** The expression's text without its spans; unquoted names compare case-insensitively. */
function fingerprint(expr: Expr): string {
  return JSON.stringify(expr, (key, value: unknown) => {
    if (key === 'span') return undefined;
    if (isUnquotedIdentifier(value)) return { ...value, name: value.name.toLowerCase() };
    return value;
  });
}

function isUnquotedIdentifier(value: unknown): value is Identifier {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'identifier' && (value as Identifier).quoted === false;
}

/** `expr` with `f` applied to its direct sub-expressions (not into subqueries) and `g` to an OVER window. */
function mapChildren(expr: Expr, f: (e: Expr) => Expr, g: (spec: WindowSpec) => WindowSpec): Expr {
  const opt = (e: Expr | undefined): Expr | undefined => (e === undefined ? undefined : f(e));
  switch (expr.kind) {
    case 'unary':
      return { ...expr, operand: f(expr.operand) };
    case 'binary':
      return { ...expr, left: f(expr.left), right: f(expr.right) };
    case 'call': {
      const call: FunctionCall = {
        ...expr,
        args: expr.args.map((a) => (a.kind === 'table-arg' ? a : f(a))),
        filter: opt(expr.filter),
        over: expr.over === undefined ? undefined : g(expr.over),
      };
      return call;
    }
    case 'case':
      return {
        ...expr,
        operand: opt(expr.operand),
        whens: expr.whens.map((w) => ({ when: f(w.when), alternatives: w.alternatives?.map(f), then: f(w.then) })),
        else: opt(expr.else),
      };
    case 'cast':
      return { ...expr, expr: f(expr.expr) };
    case 'field-access':
      return { ...expr, expr: f(expr.expr) };
    case 'between':
      return { ...expr, expr: f(expr.expr), low: f(expr.low), high: f(expr.high) };
    case 'in-list':
      return { ...expr, expr: f(expr.expr), list: expr.list.map(f) };
    case 'like':
      return { ...expr, expr: f(expr.expr), pattern: f(expr.pattern), escape: opt(expr.escape) };
    case 'is':
      return { ...expr, expr: f(expr.expr) };
    case 'item-access':
      return { ...expr, expr: f(expr.expr), index: f(expr.index) };
    case 'column-ref':
    case 'literal':
    case 'interval':
    case 'typed-literal':
    case 'star':
    case 'scalar-subquery':
    case 'exists':
    case 'in-subquery':
    case 'quantified':
      return expr;
    default: {
      const unknown: never = expr;
      return unknown;
    }
  }
}
