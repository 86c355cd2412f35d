/**
 * Which views and materialized views read a relation, directly or through one another: DROP
 * refuses to drop a relation others depend on (naming them), and DROP ... CASCADE drops them too,
 * so that no view is left reading a relation that is gone (or, restored from the catalog file,
 * failing to bind).
 */
import type { Catalog } from '../sql/catalog/catalog.js';
import { relationsReferenced } from '../sql/bind/relation-references.js';
import { parseStatement } from '../sql/parse/parser.js';
import type { Query } from '../sql/parse/ast.js';

/** A view or materialized view that depends on another relation. */
export interface Dependent {
  readonly kind: 'view' | 'materialized-view';
  readonly name: string;
}

/**
 * Every view and materialized view that reads `name`, directly or through other dependents,
 * ordered so that each comes before anything it depends on among them (the order to drop them in).
 */
export function dependentsOf(catalog: Catalog, name: string): Dependent[] {
  const readers = directReaders(catalog);
  const ordered: Dependent[] = [];
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (target: string): void => {
    for (const reader of readers.get(target) ?? []) {
      if (done.has(reader.name) || visiting.has(reader.name)) continue;
      visiting.add(reader.name);
      visit(reader.name);
      visiting.delete(reader.name);
      done.add(reader.name);
      ordered.push(reader);
    }
  };
  visit(name);
  return ordered;
}

/** Describes dependents for a message: `view 'v', materialized view 'm'`. */
export function describeDependents(dependents: readonly Dependent[]): string {
  return dependents.map((d) => `${d.kind.replace('-', ' ')} '${d.name}'`).join(', ');
}

/** Per relation name (as the catalog holds it), the views and materialized views whose queries name it. */
function directReaders(catalog: Catalog): Map<string, Dependent[]> {
  const readers = new Map<string, Dependent[]>();
  const add = (reader: Dependent, query: Query): void => {
    for (const written of relationsReferenced(query)) {
      const target = catalog.find(written)?.name ?? catalog.materializedView(written)?.name;
      if (target === undefined || target === reader.name) continue;
      const list = readers.get(target) ?? [];
      if (!list.some((r) => r.name === reader.name)) list.push(reader);
      readers.set(target, list);
    }
  };
  for (const view of catalog.views()) add({ kind: 'view', name: view.name }, view.query);
  for (const view of catalog.materializedViews()) {
    const statement = parseStatement(view.queryText);
    if (statement.kind === 'query') add({ kind: 'materialized-view', name: view.name }, statement.query);
  }
  return readers;
}
