/**
 * UPDATE and DELETE on writable tables (tables declared without a connector): the statement's
 * expressions are bound over the table's physical columns and compiled once; every current row
 * that matches becomes -U/+U (UPDATE) or -D (DELETE) in the table's log, written durably before
 * the statement returns. Without a primary key the table is a multiset: each matching occurrence
 * changes. A primary key column cannot be updated (delete and insert instead). A string literal
 * assigned to a column is read as a value of the column's type, as PostgreSQL does. A WHERE with
 * subqueries (correlated or not) is evaluated by the caller as a batch query of the table's rows
 * (see {@link matchingRowsQuery}); the rows it returns are the rows that change, each once.
 */
import { WRITABLE_TABLE_CONNECTOR } from '../common/connector-descriptor.js';
import { WeirError } from '../common/errors.js';
import { keySelector, type Key } from '../common/key-codec.js';
import { RowKind } from '../common/row-kind.js';
import type { Row } from '../common/row.js';
import { formatType, sameType } from '../common/sql-type.js';
import { TableContents } from '../connectors/table/table-contents.js';
import { TableLog } from '../connectors/table/table-log.js';
import { writableTablePath } from '../connectors/table/writable-table-connector.js';
import type { ExprCompiler } from '../expr/expr-compiler.js';
import { canAssign } from '../expr/type-coercion.js';
import { bindExpr, castTo } from '../sql/bind/bind-expr.js';
import { stringLiteralAs } from '../sql/bind/literal-values.js';
import { objectName } from '../sql/bind/bind-query.js';
import { containsSubquery } from '../sql/bind/bind-subquery.js';
import type { BinderContext } from '../sql/bind/binder-context.js';
import { Scope } from '../sql/bind/scope.js';
import { physicalSchema, type CatalogTable } from '../sql/catalog/catalog-objects.js';
import type { DeleteStatement, QualifiedName, SelectQuery, UpdateStatement } from '../sql/parse/ast.js';
import type { TableChange } from '../connectors/table/table-log.js';

/** A writable table's contents and how its expressions see it. */
interface Target {
  readonly table: CatalogTable;
  readonly contents: TableContents;
  readonly scope: Scope;
}

/**
 * The query whose rows are the rows of a writable table that a WHERE with subqueries selects
 * (`SELECT * FROM target WHERE where`), or undefined when the WHERE has no subquery (it is then
 * evaluated row by row).
 */
export function matchingRowsQuery(statement: UpdateStatement | DeleteStatement): SelectQuery | undefined {
  const where = statement.where;
  if (where === undefined || !containsSubquery(where)) return undefined;
  return {
    kind: 'select',
    span: statement.span,
    distinct: false,
    items: [{ kind: 'select-star', span: statement.target.span, qualifier: [] }],
    from: { kind: 'named-table', span: statement.target.span, name: statement.target },
    where,
    groupBy: [],
    windows: [],
    orderBy: [],
  };
}

/** Runs UPDATE; returns how many rows changed. `matching`: the rows a WHERE with subqueries selects (see {@link matchingRowsQuery}). */
export function updateWritableTable(statement: UpdateStatement, binder: BinderContext, compiler: ExprCompiler, matching?: readonly Row[]): number {
  const { table, contents, scope } = writableTarget(statement.target, binder, 'UPDATE');
  const schema = physicalSchema(table);
  const setters = statement.assignments.map(({ column, value }) => {
    const index = schema.findIndex((f) => f.name === column.name);
    if (index < 0) throw new WeirError('UNKNOWN_COLUMN', `column '${column.name}' is not a column of '${table.name}'`, { span: column.span });
    if (table.primaryKey.includes(column.name)) {
      throw new WeirError('UNSUPPORTED', `UPDATE cannot change the primary key column '${column.name}' of '${table.name}'`, { span: column.span, hint: 'DELETE the row and INSERT it with the new key' });
    }
    const field = schema[index]!;
    if (containsSubquery(value)) {
      throw new WeirError('UNSUPPORTED', `a subquery is not supported in the SET of UPDATE (column '${column.name}')`, {
        span: value.span,
        hint: 'the SET values are computed row by row over the table; subqueries may select the rows, in WHERE',
      });
    }
    // As in PostgreSQL (and INSERT ... VALUES), a string literal takes the column's type.
    const literal = value.kind === 'literal' && value.type === 'string' ? stringLiteralAs(value.value, value.span, field.type, `column '${field.name}' of '${table.name}'`) : undefined;
    const bound = literal ?? bindExpr(value, { scope, functions: binder.functions, clause: 'SELECT' });
    if (!sameType(bound.type, field.type, { ignoreNullability: true }) && !canAssign(bound.type, field.type)) {
      throw new WeirError('TYPE_MISMATCH', `column '${field.name}' of '${table.name}' has type ${formatType(field.type)} but the value has type ${formatType(bound.type)}`, {
        span: value.span,
        hint: `use CAST(... AS ${formatType(field.type)})`,
      });
    }
    return { index, value: compiler.scalar(castTo(bound, field.type)) };
  });
  const matches = matching === undefined ? matcher(statement.where, scope, binder, compiler) : matcherOf(matching, schema.length);
  const changes: TableChange[] = [];
  for (const row of contents.rows()) {
    if (!matches(row)) continue;
    const updated: Row = [...row];
    for (const { index, value } of setters) updated[index] = value(row);
    changes.push({ kind: RowKind.UPDATE_BEFORE, row }, { kind: RowKind.UPDATE_AFTER, row: updated });
  }
  contents.write(changes);
  return changes.length / 2;
}

/** Runs DELETE; returns how many rows were removed. `matching`: the rows a WHERE with subqueries selects (see {@link matchingRowsQuery}). */
export function deleteFromWritableTable(statement: DeleteStatement, binder: BinderContext, compiler: ExprCompiler, matching?: readonly Row[]): number {
  const { table, contents, scope } = writableTarget(statement.target, binder, 'DELETE');
  const matches = matching === undefined ? matcher(statement.where, scope, binder, compiler) : matcherOf(matching, physicalSchema(table).length);
  const changes: TableChange[] = contents.rows().filter(matches).map((row) => ({ kind: RowKind.DELETE, row }));
  contents.write(changes);
  return changes.length;
}

/** Forgets a dropped writable table: its log and its contents in this process. */
export function dropWritableTable(table: CatalogTable): void {
  if (table.connector.name !== WRITABLE_TABLE_CONNECTOR) return;
  const path = table.options.get('path') ?? writableTablePath(table.name);
  new TableLog(path, table.name, physicalSchema(table)).remove();
  TableContents.forget(path);
}

function writableTarget(name: QualifiedName, binder: BinderContext, verb: string): Target {
  const table = binder.catalog.getTable(objectName(name.parts, name.span), name.span);
  if (table.connector.name !== WRITABLE_TABLE_CONNECTOR) {
    throw new WeirError('INVALID_ARGUMENT', `${verb} needs a table stored by weir, but '${table.name}' is read through connector '${table.connector.name}'`, {
      span: name.span,
      hint: 'a table declared without WITH (...) is stored by weir and accepts INSERT, UPDATE and DELETE',
    });
  }
  const schema = physicalSchema(table);
  const log = new TableLog(table.options.get('path') ?? writableTablePath(table.name), table.name, schema);
  const keyIndexes = table.primaryKey.map((key) => schema.findIndex((f) => f.name === key));
  return { table, contents: TableContents.of(log, keyIndexes), scope: Scope.of(schema, table.name) };
}

/**
 * Matches the table's rows against the rows a query selected: each selected row matches one equal
 * row of the table (a keyless table may hold several), as a multiset.
 */
function matcherOf(matching: readonly Row[], width: number): (row: Row) => boolean {
  const encode = keySelector(Array.from({ length: width }, (_, i) => i));
  const counts = new Map<Key, number>();
  for (const row of matching) {
    if (row.length !== width) throw new WeirError('INTERNAL_ERROR', `the rows selected by the WHERE have ${row.length} columns, the table ${width}`);
    const key = encode(row);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return (row) => {
    const key = encode(row);
    const left = counts.get(key) ?? 0;
    if (left === 0) return false;
    counts.set(key, left - 1);
    return true;
  };
}

function matcher(where: UpdateStatement['where'], scope: Scope, binder: BinderContext, compiler: ExprCompiler): (row: Row) => boolean {
  if (where === undefined) return () => true;
  if (containsSubquery(where)) throw new WeirError('INTERNAL_ERROR', 'a WHERE with subqueries is evaluated as a query of the table (matchingRowsQuery)', { span: where.span });
  const condition = bindExpr(where, { scope, functions: binder.functions, clause: 'WHERE' });
  if (condition.type.kind !== 'BOOLEAN' && condition.type.kind !== 'NULL') {
    throw new WeirError('TYPE_MISMATCH', `WHERE needs a BOOLEAN condition, not ${formatType(condition.type)}`, { span: where.span });
  }
  return compiler.predicate(condition);
}
