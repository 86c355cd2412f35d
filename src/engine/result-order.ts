/**
 * The order of a finite result: a query's outer ORDER BY over its output columns. A streaming
 * Top-N keeps the right rows but emits them in no particular order, so `engine.query` (and the
 * shell's final tables) sort the final table by it, NULLs placed as in Flink unless NULLS FIRST /
 * LAST says otherwise (see order-key.ts); system tables sort their snapshot the same way.
 */
import { orderKey, type OrderKey } from '../common/order-key.js';
import type { Schema } from '../common/schema.js';
import type { OrderItem, Query } from '../sql/parse/ast.js';

/** The outermost ORDER BY of a query (through WITH), empty when it has none. */
export function outerOrderBy(query: Query): readonly OrderItem[] {
  switch (query.kind) {
    case 'with':
      return outerOrderBy(query.body);
    case 'select':
    case 'set-operation':
      return query.orderBy;
    case 'values':
      return [];
  }
}

/** The output column an ORDER BY item names — a column name (its last part) or a 1-based position — or undefined for anything else. */
export function outputColumnOf(item: OrderItem, schema: Schema): number | undefined {
  const { expr } = item;
  if (expr.kind === 'column-ref') {
    const name = expr.parts[expr.parts.length - 1]!.name;
    const exact = schema.findIndex((f) => f.name === name);
    const index = exact >= 0 ? exact : schema.findIndex((f) => f.name.toLowerCase() === name.toLowerCase());
    return index >= 0 ? index : undefined;
  }
  if (expr.kind === 'literal' && expr.type === 'number' && /^\d+$/.test(expr.text)) {
    const position = Number(expr.text);
    return position >= 1 && position <= schema.length ? position - 1 : undefined;
  }
  return undefined;
}

/**
 * The outer ORDER BY of `query` as order keys over its output `schema`; undefined when it has none
 * or an item is not an output column (an expression, or a column the select list drops), since the
 * result alone cannot then be sorted.
 */
export function resultOrder(query: Query, schema: Schema): OrderKey[] | undefined {
  const items = outerOrderBy(query);
  if (items.length === 0) return undefined;
  const keys: OrderKey[] = [];
  for (const item of items) {
    const index = outputColumnOf(item, schema);
    if (index === undefined) return undefined;
    keys.push(orderKey(index, item.descending, item.nullsFirst));
  }
  return keys;
}
