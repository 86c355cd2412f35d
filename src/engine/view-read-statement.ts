/**
 * A SELECT that reads only materialized views runs in their Postgres database. The statement is
 * sent with a WITH clause that names each view it reads after the view's table and visible
 * columns, so that a view stored under another table (`'table-name'`) is found, and the hidden
 * column of a multiset view (see postgres-ddl.ts) is not in `SELECT *`:
 *
 *   SELECT * FROM heavy  →  WITH heavy AS (SELECT "k", "n" FROM "public"."heavy_items") SELECT * FROM heavy
 *
 * A statement that already has a WITH clause gets the views' entries first in it.
 */
import { parseTableName } from '../connectors/postgres/postgres-options.js';
import type { CatalogMaterializedView } from '../sql/catalog/catalog-objects.js';

/** One view as the statement names it (`reference`: the name as written in the statement). */
export interface ViewReference {
  readonly reference: string;
  readonly view: CatalogMaterializedView;
}

/** `text` with a WITH entry for each view it reads (see the module comment). */
export function viewReadStatement(text: string, views: readonly ViewReference[]): string {
  const seen = new Set<string>();
  const entries: string[] = [];
  for (const { reference, view } of views) {
    if (seen.has(reference)) continue;
    seen.add(reference);
    const columns = view.schema.map((field) => quoted(field.name)).join(', ');
    entries.push(`${asWritten(reference)} AS (SELECT ${columns} FROM ${tableOf(view)})`);
  }
  const withClause = /^(\s*WITH(\s+RECURSIVE)?\s)/i.exec(text);
  if (withClause !== null) return `${withClause[1]}${entries.join(', ')}, ${text.slice(withClause[1]!.length)}`;
  return `WITH ${entries.join(', ')} ${text}`;
}

/** The view's table, quoted as the sink names it: `'table-name'` (maybe `schema.table`), else the view's name on the search path. */
function tableOf(view: CatalogMaterializedView): string {
  const name = parseTableName(view.options.get('table-name') ?? view.name);
  return name.schema === undefined ? quoted(name.table) : `${quoted(name.schema)}.${quoted(name.table)}`;
}

/** A name as the statement wrote it: unquoted when Postgres would read it so (then it folds the same way), else quoted. */
function asWritten(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) ? name : quoted(name);
}

function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
