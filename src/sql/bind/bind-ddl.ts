/**
 * Binds CREATE TABLE and CREATE VIEW into catalog objects: column types, computed columns and the
 * watermark bound over the table's own columns, the primary key checked, connector options
 * validated against the connector's descriptor at DDL time.
 */
import { WRITABLE_TABLE_CONNECTOR, type ConnectorDescriptor, type OptionSpec } from '../../common/connector-descriptor.js';
import { closestName, WeirError, type SourceSpan } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { formatType, isTimestampType, withNullable } from '../../common/sql-type.js';
import type { CatalogTable, CatalogView, TableColumn, TableWatermark } from '../catalog/catalog-objects.js';
import type { CreateTable, CreateView, OptionEntry } from '../parse/ast.js';
import { parseStatement } from '../parse/parser.js';
import { bindExpr } from './bind-expr.js';
import { bindQuery, objectName } from './bind-query.js';
import { bindType } from './bind-type.js';
import type { BinderContext } from './binder-context.js';
import { Scope } from './scope.js';
import { expandTableLike } from './table-like.js';

/**
 * Binds a CREATE TABLE statement; `text` is the statement as written. A table LIKE another is
 * bound as the plain CREATE TABLE its merge writes out (table-like.ts), which becomes its DDL.
 */
export function bindCreateTable(statement: CreateTable, text: string, ctx: BinderContext): CatalogTable {
  if (statement.like !== undefined) {
    const expanded = expandTableLike(statement, text, ctx);
    return bindCreateTable(parseStatement(expanded) as CreateTable, expanded, ctx);
  }
  const name = objectName(statement.name.parts, statement.name.span);
  const seen = new Set<string>();
  for (const column of statement.columns) {
    if (seen.has(column.name.name)) throw new WeirError('DUPLICATE_OBJECT', `column '${column.name.name}' is declared twice`, { span: column.name.span });
    seen.add(column.name.name);
  }
  const primaryKey = primaryKeyOf(statement);

  const physical: Schema = statement.columns.flatMap((c) => {
    if (c.kind === 'metadata-column') throw new WeirError('UNSUPPORTED', 'METADATA columns are not supported yet', { span: c.span });
    if (c.kind !== 'physical-column') return [];
    const type = bindType(c.type);
    return [{ name: c.name.name, type: primaryKey.includes(c.name.name) ? withNullable(type, false) : type }];
  });
  const physicalScope = Scope.of(physical, name);
  let physicalIndex = 0;
  const columns: TableColumn[] = statement.columns.map((c) => {
    if (c.kind === 'computed-column') {
      const expr = bindExpr(c.expr, { scope: physicalScope, functions: ctx.functions, clause: 'computed column' });
      return { kind: 'computed', name: c.name.name, type: expr.type, expr, text: sliceOf(text, statement.span.start.offset, c.expr.span) };
    }
    return { kind: 'physical', name: c.name.name, type: physical[physicalIndex++]!.type };
  });
  for (const key of primaryKey) {
    const column = columns.find((c) => c.name === key);
    const span = statement.primaryKey?.span ?? statement.span;
    if (column === undefined) throw new WeirError('UNKNOWN_COLUMN', `primary key column '${key}' is not a column of '${name}'`, { span });
    if (column.kind === 'computed') throw new WeirError('INVALID_ARGUMENT', `primary key column '${key}' must be a physical column, not a computed one`, { span });
  }

  const watermark = bindWatermark(statement, text, columns, name, ctx);
  const written = currentOptions(statement, ctx);
  const options = new Map(written.map((o) => [o.key, o.value]));
  if (options.size === 0) options.set('connector', WRITABLE_TABLE_CONNECTOR);
  const connectorName = options.get('connector');
  if (connectorName === undefined) {
    throw new WeirError('INVALID_OPTION', `table '${name}' needs a 'connector' option`, {
      span: statement.span,
      hint: `add WITH ('connector' = '...'); known connectors: ${ctx.catalog.connectorDescriptors().map((c) => c.name).sort().join(', ')}`,
    });
  }
  const connectorSpan = written.find((o) => o.key === 'connector')?.span ?? statement.span;
  const connector = ctx.catalog.connector(connectorName, connectorSpan);
  validateOptions(connector, written);
  const partitionedBy = statement.partitionedBy.map((p) => p.name);
  try {
    connector.validate?.(options, physical, primaryKey, partitionedBy);
  } catch (error) {
    throw error instanceof WeirError ? error.withSpan(statement.span) : error;
  }
  return {
    kind: 'table',
    name,
    temporary: statement.temporary,
    columns,
    ...(watermark === undefined ? {} : { watermark }),
    primaryKey,
    partitionedBy,
    options,
    connector,
    ...(connector.source === undefined ? {} : { traits: connector.source.traits(options, physical) }),
    ...(statement.comment === undefined ? {} : { comment: statement.comment }),
    ddl: text,
  };
}

/** The table's options, those written in Flink's legacy style (`'connector.type'` without `'connector'`) translated into current ones. */
function currentOptions(statement: CreateTable, ctx: BinderContext): readonly OptionEntry[] {
  const entries = statement.options;
  if (!entries.some((o) => o.key === 'connector.type') || entries.some((o) => o.key === 'connector')) return entries;
  return ctx.catalog.translateLegacyOptions(entries, statement.span).map((o) => ({ kind: 'option', key: o.key, value: o.value, span: o.span ?? statement.span }));
}

/**
 * The table's primary key. The parser folds a column-level key (`k INT PRIMARY KEY NOT ENFORCED`)
 * into `statement.primaryKey` and refuses a second key; an AST built otherwise is checked here
 * the same way, naming both declarations.
 */
function primaryKeyOf(statement: CreateTable): string[] {
  const inline = statement.columns.filter((c) => c.kind === 'physical-column' && c.primaryKey).map((c) => c.name.name);
  const declared = statement.primaryKey?.columns.map((c) => c.name) ?? [];
  const hint = (columns: readonly string[]): string => `declare one key with PRIMARY KEY (${[...new Set(columns)].join(', ')}) NOT ENFORCED`;
  if (inline.length > 1) {
    throw new WeirError('INVALID_ARGUMENT', `a table can have only one primary key, but columns '${inline[0]}' and '${inline[1]}' are each declared PRIMARY KEY`, {
      span: statement.span,
      hint: hint(inline),
    });
  }
  if (inline.length === 1 && declared.length > 0 && (declared.length !== 1 || declared[0] !== inline[0])) {
    throw new WeirError('INVALID_ARGUMENT', `a table can have only one primary key, but column '${inline[0]}' is declared PRIMARY KEY and the table PRIMARY KEY (${declared.join(', ')})`, {
      span: statement.primaryKey!.span,
      hint: hint([...inline, ...declared]),
    });
  }
  if (statement.primaryKey !== undefined && !statement.primaryKey.notEnforced) {
    const written = inline.length === 1 ? `${inline[0]} ... PRIMARY KEY NOT ENFORCED` : 'PRIMARY KEY (...) NOT ENFORCED';
    throw new WeirError('INVALID_ARGUMENT', `Flink doesn't support ENFORCED mode for PRIMARY KEY constraints; write ${written}`, { span: statement.primaryKey.span });
  }
  return declared.length > 0 ? declared : inline;
}

function bindWatermark(statement: CreateTable, text: string, columns: readonly TableColumn[], table: string, ctx: BinderContext): TableWatermark | undefined {
  const spec = statement.watermark;
  if (spec === undefined) return undefined;
  const column = columns.find((c) => c.name === spec.column.name);
  if (column === undefined) throw new WeirError('UNKNOWN_COLUMN', `watermark column '${spec.column.name}' is not a column of '${table}'`, { span: spec.column.span });
  if (!isTimestampType(column.type) || (column.type as { precision: number }).precision > 3) {
    // As Flink: a rowtime attribute keeps milliseconds (windows and watermarks run on them), so its precision is at most 3.
    throw new WeirError('TYPE_MISMATCH', `watermark column '${column.name}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3) (a precision of at most 3), not ${formatType(withNullable(column.type, true))}`, { span: spec.column.span });
  }
  if (spec.expr.kind === 'call' && spec.expr.name.parts.length === 1 && spec.expr.name.parts[0]!.name.toUpperCase() === 'SOURCE_WATERMARK') {
    // Flink's SOURCE_WATERMARK() hands watermarking to a connector that emits its own
    // (SupportsSourceWatermark); Flink refuses it for any other, and no weir connector does.
    throw new WeirError('UNSUPPORTED', `SOURCE_WATERMARK() needs a connector that emits its own watermarks, and no weir connector does`, {
      span: spec.expr.span,
      hint: `declare the watermark: WATERMARK FOR ${column.name} AS ${column.name} - INTERVAL '5' SECOND`,
    });
  }
  const scope = Scope.of(columns, table);
  const expr = bindExpr(spec.expr, { scope, functions: ctx.functions, clause: 'WATERMARK' });
  if (!isTimestampType(expr.type)) throw new WeirError('TYPE_MISMATCH', `the watermark expression must return a timestamp, not ${expr.type.kind}`, { span: spec.expr.span });
  return { column: column.name, expr, text: sliceOf(text, statement.span.start.offset, spec.expr.span) };
}

/** The text of a span inside a statement whose text starts at `base` in the script. */
function sliceOf(text: string, base: number, span: SourceSpan): string {
  return text.slice(span.start.offset - base, span.end.offset - base);
}

function validateOptions(connector: ConnectorDescriptor, entries: readonly OptionEntry[]): void {
  const patterns = connector.options.map((spec) => ({ spec, regex: optionPattern(spec) }));
  const seen = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.key)) throw new WeirError('INVALID_OPTION', `option '${entry.key}' is given twice`, { span: entry.span });
    seen.add(entry.key);
    if (entry.key === 'connector') continue;
    const match = patterns.find((p) => p.regex.test(entry.key));
    if (match === undefined) {
      const suggestion = closestName(entry.key, connector.options.map((o) => o.key));
      throw new WeirError('INVALID_OPTION', `unknown option '${entry.key}' for connector '${connector.name}'`, {
        span: entry.span,
        hint: suggestion !== undefined ? `did you mean '${suggestion}'?` : `supported options: ${connector.options.map((o) => o.key).join(', ')}`,
      });
    }
    if (match.spec.values !== undefined && !match.spec.values.includes(entry.value)) {
      throw new WeirError('INVALID_OPTION', `option '${entry.key}' must be one of ${match.spec.values.map((v) => `'${v}'`).join(', ')}, got '${entry.value}'`, { span: entry.span });
    }
  }
  for (const spec of connector.options) {
    if (spec.required && !seen.has(spec.key)) throw new WeirError('INVALID_OPTION', `connector '${connector.name}' requires option '${spec.key}'`, { span: entries[0]?.span });
  }
}

function optionPattern(spec: OptionSpec): RegExp {
  const escaped = spec.key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<[^>]+>/g, '[^]+?');
  return new RegExp(`^${escaped}$`);
}

/** Binds a CREATE VIEW statement: the query is bound once now, so that errors surface at creation. */
export function bindCreateView(statement: CreateView, text: string, ctx: BinderContext): CatalogView {
  const name = objectName(statement.name.parts, statement.name.span);
  const bound = bindQuery(statement.query, ctx);
  const columnNames = statement.columns?.map((c) => c.name);
  if (columnNames !== undefined && columnNames.length !== bound.schema.length) {
    throw new WeirError('INVALID_ARGUMENT', `view '${name}' names ${columnNames.length} columns but its query has ${bound.schema.length}`, { span: statement.span });
  }
  const schema = bound.schema.map((f, i) => ({ name: columnNames?.[i] ?? f.name, type: f.type }));
  return {
    kind: 'view',
    name,
    temporary: statement.temporary,
    query: statement.query,
    queryText: statement.queryText,
    ...(columnNames === undefined ? {} : { columnNames }),
    schema,
    ddl: text,
  };
}
