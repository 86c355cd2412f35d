/**
 * The session catalog: tables and views by name in one database (`default_catalog.default_database`),
 * and the connectors that tables may name. Names are matched exactly first and then
 * case-insensitively when that is unambiguous.
 */
import type { ConnectorDescriptor, LegacyOptionTranslator, WrittenOption } from '../../common/connector-descriptor.js';
import { closestName, WeirError, type SourceSpan } from '../../common/errors.js';
import type { CatalogMaterializedView, CatalogRelation, CatalogTable, CatalogView } from './catalog-objects.js';

/** The catalog and database every object lives in, as Flink names them by default. */
export { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../../common/catalog-names.js';

/** The database of weir's read-only system tables (`weir.jobs`, ...), named `weir.<table>` in the catalog. */
export const SYSTEM_DATABASE = 'weir';

/** Tables, views and known connectors of a session. */
export class Catalog {
  private readonly relations = new Map<string, CatalogRelation>();
  private readonly materialized = new Map<string, CatalogMaterializedView>();
  private readonly connectors = new Map<string, ConnectorDescriptor>();
  private readonly system = new Map<string, CatalogTable>();

  constructor(
    connectors: Iterable<ConnectorDescriptor>,
    private readonly legacyOptions?: LegacyOptionTranslator,
  ) {
    for (const connector of connectors) this.connectors.set(connector.name, connector);
  }

  /** A table's options written in Flink's legacy style (`'connector.type'`) as current ones; throws INVALID_OPTION when they cannot be translated. */
  translateLegacyOptions(options: readonly WrittenOption[], span?: SourceSpan): WrittenOption[] {
    if (this.legacyOptions === undefined) {
      throw new WeirError('INVALID_OPTION', "legacy table options ('connector.type') are not supported in this session", { span, hint: "declare the table with 'connector' = '...'" });
    }
    return this.legacyOptions(options);
  }

  /** The connector named in `'connector' = name`, or a validation error listing the known ones. */
  connector(name: string, span?: SourceSpan): ConnectorDescriptor {
    const connector = this.connectors.get(name);
    if (connector !== undefined) return connector;
    const suggestion = closestName(name, this.connectors.keys());
    throw new WeirError('INVALID_OPTION', `unknown connector '${name}'`, {
      span,
      hint: suggestion !== undefined ? `did you mean '${suggestion}'?` : `known connectors: ${[...this.connectors.keys()].sort().join(', ')}`,
    });
  }

  /** Known connector descriptors. */
  connectorDescriptors(): readonly ConnectorDescriptor[] {
    return [...this.connectors.values()];
  }

  /** Adds a system table, named `weir.<table>`: read-only, not listed by SHOW TABLES, never stored. */
  addSystemTable(table: CatalogTable): void {
    this.system.set(table.name, table);
  }

  /** The system tables, sorted by name. */
  systemTables(): readonly CatalogTable[] {
    return [...this.system.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Looks a relation up; undefined when there is none. */
  find(name: string): CatalogRelation | undefined {
    const exact = this.relations.get(name);
    if (exact !== undefined) return exact;
    if (name.startsWith(`${SYSTEM_DATABASE}.`)) return this.system.get(name) ?? [...this.system.values()].find((t) => t.name.toLowerCase() === name.toLowerCase());
    const lower = name.toLowerCase();
    const matches = [...this.relations.values()].filter((r) => r.name.toLowerCase() === lower);
    return matches.length === 1 ? matches[0] : undefined;
  }

  /** Looks a relation up, or fails with "did you mean". */
  get(name: string, span?: SourceSpan): CatalogRelation {
    const relation = this.find(name);
    if (relation !== undefined) return relation;
    const view = this.materializedView(name);
    if (view !== undefined) {
      throw new WeirError('INVALID_ARGUMENT', `'${view.name}' is a materialized view, not a table or a view`, {
        span,
        hint: 'queries read materialized views; DESCRIBE, SHOW CREATE MATERIALIZED VIEW and DROP MATERIALIZED VIEW manage them',
      });
    }
    const suggestion = closestName(name, name.startsWith(`${SYSTEM_DATABASE}.`) ? this.system.keys() : this.relations.keys());
    throw new WeirError('UNKNOWN_TABLE', `table or view '${name}' does not exist`, {
      span,
      hint: suggestion !== undefined ? `did you mean '${suggestion}'?` : undefined,
    });
  }

  /** Looks a table (not a view) up, or fails. */
  getTable(name: string, span?: SourceSpan): CatalogTable {
    const relation = this.get(name, span);
    if (relation.kind !== 'table') throw new WeirError('INVALID_ARGUMENT', `'${relation.name}' is a view, not a table`, { span });
    return relation;
  }

  /** A materialized view by name. */
  materializedView(name: string): CatalogMaterializedView | undefined {
    return this.materialized.get(name) ?? [...this.materialized.values()].find((v) => v.name.toLowerCase() === name.toLowerCase());
  }

  /** Materialized views, sorted by name. */
  materializedViews(): readonly CatalogMaterializedView[] {
    return [...this.materialized.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Adds a materialized view; its name must not be taken by any relation. */
  addMaterializedView(view: CatalogMaterializedView, span?: SourceSpan): void {
    this.checkFree(view.name, span);
    this.materialized.set(view.name, view);
  }

  /** Removes a materialized view; returns it, or undefined (an error unless `ifExists`). */
  dropMaterializedView(name: string, options: { ifExists: boolean; span?: SourceSpan }): CatalogMaterializedView | undefined {
    const view = this.materializedView(name);
    if (view === undefined) {
      if (options.ifExists) return undefined;
      throw new WeirError('UNKNOWN_TABLE', `materialized view '${name}' does not exist`, { span: options.span });
    }
    this.materialized.delete(view.name);
    return view;
  }

  /** Fails when a table, view or materialized view already has this name. */
  checkFree(name: string, span?: SourceSpan): void {
    const existing = this.relations.get(name) ?? this.materialized.get(name);
    if (existing !== undefined) throw new WeirError('DUPLICATE_OBJECT', `${existing.kind.replace('-', ' ')} '${name}' already exists`, { span });
  }

  /** Adds a table or view; an existing name is an error unless `ifNotExists` (then nothing happens). */
  add(relation: CatalogRelation, options: { ifNotExists: boolean; span?: SourceSpan }): boolean {
    if (this.materialized.has(relation.name)) this.checkFree(relation.name, options.span);
    const existing = this.relations.get(relation.name);
    if (existing !== undefined) {
      if (options.ifNotExists) return false;
      throw new WeirError('DUPLICATE_OBJECT', `${existing.kind} '${relation.name}' already exists`, { span: options.span });
    }
    this.relations.set(relation.name, relation);
    return true;
  }

  /** Removes a table or view of the given kind; a missing one is an error unless `ifExists`. */
  drop(kind: CatalogRelation['kind'], name: string, options: { ifExists: boolean; span?: SourceSpan }): boolean {
    const relation = this.find(name);
    if (relation === undefined || relation.kind !== kind) {
      if (options.ifExists) return false;
      if (relation !== undefined) {
        throw new WeirError('INVALID_ARGUMENT', `'${relation.name}' is a ${relation.kind}, not a ${kind}; use DROP ${relation.kind.toUpperCase()}`, { span: options.span });
      }
      this.get(name, options.span);
    }
    this.relations.delete(relation!.name);
    return true;
  }

  /** Tables, sorted by name. */
  tables(): readonly CatalogTable[] {
    return [...this.relations.values()].filter((r): r is CatalogTable => r.kind === 'table').sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Views, sorted by name. */
  views(): readonly CatalogView[] {
    return [...this.relations.values()].filter((r): r is CatalogView => r.kind === 'view').sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every relation name, for suggestions. */
  names(): readonly string[] {
    return [...this.relations.keys()];
  }
}
