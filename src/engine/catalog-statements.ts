/** The statements that answer from the catalog and the job list: SHOW ... and DESCRIBE, with Flink's column names. */
import { WeirError, type SourceSpan } from '../common/errors.js';
import { maskSecrets } from '../common/secrets.js';
import { formatType, SqlTypes, type SqlType } from '../common/sql-type.js';
import type { Field } from '../common/schema.js';
import type { FunctionRegistry } from '../expr/function-registry.js';
import { objectName, relationName } from '../sql/bind/bind-query.js';
import { Catalog, DEFAULT_CATALOG, DEFAULT_DATABASE } from '../sql/catalog/catalog.js';
import type { CatalogMaterializedView, CatalogTable } from '../sql/catalog/catalog-objects.js';
import { MULTISET_HASH_COLUMN } from '../connectors/postgres/postgres-ddl.js';
import type { Statement } from '../sql/parse/ast.js';
import type { JobHandle } from './job-handle.js';
import { showMetrics } from './show-metrics.js';
import type { StatementResult } from './statement-result.js';

/** What SHOW reads. */
export interface ShowContext {
  readonly catalog: Catalog;
  readonly functions: FunctionRegistry;
  readonly jobs: readonly JobHandle[];
  /** The job maintaining the materialized views, while one runs. */
  readonly materializedJob?: JobHandle;
}

/** Answers a SHOW statement. */
export function show(statement: Extract<Statement, { kind: 'show' }>, session: ShowContext): StatementResult {
  switch (statement.what) {
    case 'TABLES': {
      // As Flink's (Hive style): tables and views; SHOW VIEWS lists the views alone.
      const { catalog } = session;
      const names = [...new Set([...catalog.tables(), ...catalog.views(), ...catalog.materializedViews()].map((t) => t.name))].sort((a, b) => a.localeCompare(b));
      return { kind: 'rows', schema: [stringField('table name')], rows: names.map((name) => [name]) };
    }
    case 'MATERIALIZED VIEWS':
      return {
        kind: 'rows',
        schema: [stringField('materialized view name'), stringField('primary key'), stringField('job id')],
        rows: session.catalog.materializedViews().map((v) => [v.name, v.multiset ? '(none: a multiset)' : v.primaryKey.join(', '), session.materializedJob?.id ?? '']),
      };
    case 'VIEWS':
      return { kind: 'rows', schema: [stringField('view name')], rows: session.catalog.views().map((v) => [v.name]) };
    case 'FUNCTIONS':
      return { kind: 'rows', schema: [stringField('function name')], rows: [...session.functions.names(), ...session.functions.tables().map((t) => t.name)].sort().map((n) => [n]) };
    case 'CATALOGS':
      return { kind: 'rows', schema: [stringField('catalog name')], rows: [[DEFAULT_CATALOG]] };
    case 'DATABASES':
      return { kind: 'rows', schema: [stringField('database name')], rows: [[DEFAULT_DATABASE]] };
    case 'CURRENT CATALOG':
      return { kind: 'rows', schema: [stringField('current catalog name')], rows: [[DEFAULT_CATALOG]] };
    case 'CURRENT DATABASE':
      return { kind: 'rows', schema: [stringField('current database name')], rows: [[DEFAULT_DATABASE]] };
    case 'JOBS':
      return {
        kind: 'rows',
        schema: ['job id', 'job name', 'status', 'start time', 'uptime', 'last checkpoint', 'records in', 'records out', 'records rejected', 'restarts', 'last failure'].map(stringField),
        rows: session.jobs.map((j) => {
          const metrics = j.metrics();
          const sources = metrics.filter((m) => /-(source|values)$/.test(m.node));
          const sinks = metrics.filter((m) => m.node.endsWith('-sink'));
          return [
            j.id,
            j.name,
            j.status,
            j.startedAt.toISOString(),
            `${(((j.endedAt ?? new Date()).getTime() - j.startedAt.getTime()) / 1000).toFixed(1)} s`,
            j.lastCheckpoint === undefined ? null : `${j.lastCheckpoint.kind} ${j.lastCheckpoint.id}`,
            String(sources.reduce((n, m) => n + m.recordsOut, 0)),
            String(sinks.reduce((n, m) => n + m.recordsIn, 0)),
            String(metrics.reduce((n, m) => n + m.recordsRejected, 0)),
            String(j.restarts),
            lastFailure(j),
          ];
        }),
      };
    case 'METRICS':
      return showMetrics(session.jobs);
    case 'CREATE MATERIALIZED VIEW': {
      const view = session.catalog.materializedView(objectName(statement.name!.parts, statement.name!.span));
      if (view === undefined) throw new WeirError('UNKNOWN_TABLE', `materialized view '${statement.name!.parts.map((p) => p.name).join('.')}' does not exist`, { span: statement.name!.span });
      return { kind: 'text', text: maskSecrets(view.ddl) };
    }
    case 'CREATE TABLE':
    case 'CREATE VIEW': {
      const name = relationName(statement.name!.parts, statement.name!.span);
      const relation = statement.what === 'CREATE TABLE' ? session.catalog.getTable(name, statement.name!.span) : session.catalog.get(name, statement.name!.span);
      return { kind: 'text', text: maskSecrets(relation.ddl) };
    }
    default:
      throw new WeirError('UNSUPPORTED', `SHOW ${statement.what} is not supported yet`, { span: statement.span });
  }
}

/** Flink's DESCRIBE: name, type, null, key, extras (computed expression), watermark. */
export function describe(catalog: Catalog, name: string, span: SourceSpan): StatementResult {
  const schema = [stringField('name'), stringField('type'), stringField('null'), stringField('key'), stringField('extras'), stringField('watermark')];
  const view = catalog.find(name) === undefined ? catalog.materializedView(name) : undefined;
  if (view !== undefined) return { kind: 'rows', schema, rows: describeMaterializedView(view) };
  const relation = catalog.get(name, span);
  if (relation.kind === 'view') {
    return { kind: 'rows', schema, rows: relation.schema.map((f) => [f.name, typeText(f.type), f.type.nullable ? 'TRUE' : 'FALSE', null, null, null]) };
  }
  return { kind: 'rows', schema, rows: describeTable(relation) };
}

/**
 * A materialized view's columns, its key marked; a view without a key (a multiset) also lists the
 * hidden column its Postgres table identifies rows by, which reads through weir leave out.
 */
function describeMaterializedView(view: CatalogMaterializedView): unknown[][] {
  const key = view.primaryKey.length === 0 ? null : `PRI(${view.primaryKey.join(', ')})`;
  const rows = view.schema.map((f) => [f.name, typeText(f.type), f.type.nullable ? 'TRUE' : 'FALSE', view.primaryKey.includes(f.name) ? key : null, null, null]);
  if (!view.multiset) return rows;
  return [...rows, [MULTISET_HASH_COLUMN, 'BIGINT', 'FALSE', null, 'HIDDEN: the query has no unique key, so its table is a multiset; this hash of each row finds the row a retraction removes (SELECT * leaves it out)', null]];
}

function describeTable(table: CatalogTable): unknown[][] {
  return table.columns.map((column) => {
    const key = table.primaryKey.includes(column.name) ? `PRI(${table.primaryKey.join(', ')})` : null;
    const extras = column.kind === 'computed' ? `AS ${column.text}` : null;
    const watermark = table.watermark?.column === column.name ? table.watermark.text : null;
    const type = watermark === null ? typeText(column.type) : `${typeText(column.type)} *ROWTIME*`;
    return [column.name, type, column.type.nullable ? 'TRUE' : 'FALSE', key, extras, watermark];
  });
}

function typeText(type: SqlType): string {
  return formatType({ ...type, nullable: true } as SqlType);
}

/** A nullable STRING column of a result. */
export function stringField(name: string): Field {
  return { name, type: SqlTypes.string() };
}

/** The last failure of a job that failed or was restarted: when, and the error's message. */
function lastFailure(job: JobHandle): string | null {
  const last = job.failures().at(-1);
  if (last === undefined) return null;
  return `${new Date(last.at).toISOString()} ${last.error instanceof Error ? last.error.message : String(last.error)}`;
}
