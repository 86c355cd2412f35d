/**
 * A read-only copy of what a session knows by name — relations with their columns, functions,
 * connectors with their option keys, setting keys — for clients that complete or suggest names
 * (the shell's Tab completion). Taking it changes nothing.
 */
import { WRITABLE_TABLE_CONNECTOR } from '../common/connector-descriptor.js';
import { KNOWN_SETTINGS } from './session-config.js';
import type { Session } from './session.js';

/** A table, view, materialized view or system table (`weir.jobs`) and its column names in order. */
export interface RelationNames {
  readonly name: string;
  readonly kind: 'table' | 'view' | 'materialized-view';
  readonly columns: readonly string[];
}

/** A connector's option: its key (`<field>` standing for a column name) and its allowed values, when enumerated. */
export interface ConnectorOptionNames {
  readonly key: string;
  readonly values?: readonly string[];
}

/** The names a session knows, sorted. */
export interface CatalogSnapshot {
  readonly relations: readonly RelationNames[];
  /** Functions as SHOW FUNCTIONS lists them (upper case, aliases included). */
  readonly functions: readonly string[];
  /** Connectors a `'connector' = '...'` option may name (weir's internal table connector excluded). */
  readonly connectors: readonly { readonly name: string; readonly options: readonly ConnectorOptionNames[] }[];
  /** Settings weir understands and settings set in this session. */
  readonly settings: readonly string[];
}

/** The names `session` knows now. */
export function catalogSnapshot(session: Session): CatalogSnapshot {
  const { catalog } = session;
  const relations: RelationNames[] = [
    ...catalog.tables().map((t) => ({ name: t.name, kind: 'table' as const, columns: t.columns.map((c) => c.name) })),
    ...catalog.views().map((v) => ({ name: v.name, kind: 'view' as const, columns: v.schema.map((f) => f.name) })),
    ...catalog.materializedViews().map((v) => ({ name: v.name, kind: 'materialized-view' as const, columns: v.schema.map((f) => f.name) })),
    ...catalog.systemTables().map((t) => ({ name: t.name, kind: 'table' as const, columns: t.columns.map((c) => c.name) })),
  ];
  return {
    relations: relations.sort((a, b) => a.name.localeCompare(b.name)),
    functions: session.functions.names(),
    connectors: catalog
      .connectorDescriptors()
      .filter((c) => c.name !== WRITABLE_TABLE_CONNECTOR)
      .map((c) => ({ name: c.name, options: c.options.map((o) => (o.values === undefined ? { key: o.key } : { key: o.key, values: o.values })) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    settings: [...new Set([...Object.keys(KNOWN_SETTINGS), ...session.config.entries().map(([key]) => key)])].sort(),
  };
}
