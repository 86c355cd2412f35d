/**
 * UPDATE and DELETE on writable tables (tables declared without a connector): the statement's
 * expressions are bound over the table's physical columns and compiled once; every current row
 * that matches becomes -U/+U (UPDATE) or -D (DELETE) in the table's log, written durably before
 * the statement returns. Without a primary key the table is a multiset: each matching occurrence
 * changes. A primary key column cannot be updated (delete and insert instead). A string literal
 * assigned to a column is read as a value of the column's type, as PostgreSQL does.
 */
import { WRITABLE_TABLE_CONNECTOR } from '../common/connector-descriptor.js';
import { WeirError } from '../common/errors.js';
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
import type { DeleteStatement, QualifiedName, UpdateStatement } from '../sql/parse/ast.js';
import type { TableChange } from '../connectors/table/table-log.js';

/** A writable table's contents and how its expressions see it. */
interface Target {
  readonly table: CatalogTable;
  readonly contents: TableContents;
  readonly scope: Scope;
}

/** Runs UPDATE; returns how many rows changed. */
export function updateWritableTable(statement: UpdateStatement, binder: BinderContext, compiler: ExprCompiler): number {
  const { table, contents, scope } = writableTarget(statement.target, binder, 'UPDATE');
  const schema = physicalSchema(table);
  const setters = statement.assignments.map(({ column, value }) => {
    const index = schema.findIndex((f) => f.name === column.name);
    if (index < 0) throw new WeirError('UNKNOWN_COLUMN', `column '${column.name}' is not a column of '${table.name}'`, { span: column.span });
    if (table.primaryKey.includes(column.name)) {
      throw new WeirError('UNSUPPORTED', `UPDATE cannot change the primary key column '${column.name}' of '${table.name}'`, { span: column.span, hint: 'DELETE the row and INSERT it with the new key' });
    }
    const field = schema[index]!;
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
  const matches = matcher(statement.where, scope, binder, compiler);
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

/** Runs DELETE; returns how many rows were removed. */
export function deleteFromWritableTable(statement: DeleteStatement, binder: BinderContext, compiler: ExprCompiler): number {
  const { contents, scope } = writableTarget(statement.target, binder, 'DELETE');
  const matches = matcher(statement.where, scope, binder, compiler);
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

function matcher(where: UpdateStatement['where'], scope: Scope, binder: BinderContext, compiler: ExprCompiler): (row: Row) => boolean {
  if (where === undefined) return () => true;
  if (containsSubquery(where)) {
    throw new WeirError('UNSUPPORTED', 'subqueries are not supported in the WHERE of UPDATE and DELETE', {
      span: where.span,
      hint: 'run the subquery first and list its values (WHERE id IN (1, 2, 3)); the WHERE is evaluated row by row over the table',
    });
  }
  const condition = bindExpr(where, { scope, functions: binder.functions, clause: 'WHERE' });
  if (condition.type.kind !== 'BOOLEAN' && condition.type.kind !== 'NULL') {
    throw new WeirError('TYPE_MISMATCH', `WHERE needs a BOOLEAN condition, not ${formatType(condition.type)}`, { span: where.span });
  }
  return compiler.predicate(condition);
}
