/**
 * A SELECT that reads only materialized views runs in their Postgres database, as written. Postgres
 * orders NULLs last ascending and first descending, the opposite of Flink (see order-key.ts), so
 * before the text goes to Postgres every ORDER BY item that says neither NULLS FIRST nor NULLS
 * LAST — of the query, its subqueries and its OVER windows — is given Flink's default explicitly:
 * `ORDER BY v` becomes `ORDER BY v NULLS FIRST`, `ORDER BY v DESC` becomes `... DESC NULLS LAST`.
 */
import { WeirError } from '../common/errors.js';
import { defaultNullsFirst } from '../common/order-key.js';
import type { OrderItem } from '../sql/parse/ast.js';
import { parseScript } from '../sql/parse/parser.js';

/**
 * `text` (one query) with Flink's null order made explicit on its ORDER BY items. Text that is
 * not weir's SQL (a Postgres-only construct, which this path accepts) is returned as written:
 * weir cannot find its ORDER BY items, and Postgres then orders NULLs its own way.
 */
export function withFlinkNullOrder(text: string): string {
  let items: OrderItem[];
  try {
    const statements = parseScript(text);
    if (statements.length !== 1) return text;
    items = orderItemsIn(statements[0]!.statement);
  } catch (error) {
    if (error instanceof WeirError && error.code === 'SYNTAX_ERROR') return text;
    throw error;
  }
  const inserts = items
    .filter((item) => item.nullsFirst === undefined)
    .map((item) => ({ at: item.span.end.offset, text: defaultNullsFirst(item.descending) ? ' NULLS FIRST' : ' NULLS LAST' }))
    .sort((a, b) => b.at - a.at);
  let result = text;
  for (const { at, text: clause } of inserts) result = result.slice(0, at) + clause + result.slice(at);
  return result;
}

/** Every ORDER BY item of a syntax tree, at any depth. */
function orderItemsIn(node: unknown, into: OrderItem[] = []): OrderItem[] {
  if (Array.isArray(node)) {
    for (const child of node) orderItemsIn(child, into);
  } else if (node !== null && typeof node === 'object') {
    if ((node as { kind?: unknown }).kind === 'order-item') into.push(node as OrderItem);
    for (const [key, child] of Object.entries(node)) if (key !== 'span') orderItemsIn(child, into);
  }
  return into;
}
