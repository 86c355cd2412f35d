/**
 * Binds INSERT INTO: the query's columns are matched to the target's physical columns (by
 * position, or by the column list, missing ones becoming NULL) with implicit casts, under a sink.
 * A string literal in `INSERT ... VALUES` is read as a value of its column's type, as PostgreSQL
 * does (`'2022-06-10 12:20:04.858'` into TIMESTAMP(3)); Flink refuses such casts.
 */
import { WeirError } from '../../common/errors.js';
import { formatType, isNumericType, isStringType, sameType } from '../../common/sql-type.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { canAssign } from '../../expr/type-coercion.js';
import { LogicalSink, LogicalProject, } from '../../plan/logical/logical-node.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../catalog/catalog.js';
import { physicalSchema } from '../catalog/catalog-objects.js';
import type { InsertStatement } from '../parse/ast.js';
import { castTo } from './bind-expr.js';
import { bindQuery, bindValues, objectName } from './bind-query.js';
import { stringLiteralAs } from './literal-values.js';
import type { BinderContext } from './binder-context.js';

/** Binds an INSERT statement into a sink plan. */
export function bindInsert(statement: InsertStatement, ctx: BinderContext): LogicalSink {
  const name = objectName(statement.target.parts, statement.target.span);
  const table = ctx.catalog.getTable(name, statement.target.span);
  if (table.connector.sink === undefined) {
    throw new WeirError('INVALID_ARGUMENT', `table '${table.name}' cannot be written to: connector '${table.connector.name}' is a source only`, { span: statement.target.span });
  }
  if (statement.overwrite) throw new WeirError('UNSUPPORTED', 'INSERT OVERWRITE is not supported in streaming mode', { span: statement.span });
  if (statement.partition.length > 0) throw new WeirError('UNSUPPORTED', 'static PARTITION clauses are not supported yet', { span: statement.span });
  const target = physicalSchema(table);
  const targetColumns = statement.columns?.map((c) => {
    const index = target.findIndex((f) => f.name === c.name);
    if (index < 0) throw new WeirError('UNKNOWN_COLUMN', `column '${c.name}' is not a physical column of '${table.name}'`, { span: c.span });
    return index;
  }) ?? target.map((_, i) => i);
  // As in PostgreSQL, a string literal in VALUES takes the type of the column it is inserted into.
  const query = statement.query.kind === 'values'
    ? bindValues(statement.query, ctx, (cell, position) => {
      const field = target[targetColumns[position] ?? -1];
      if (field === undefined || cell.kind !== 'literal' || cell.type !== 'string') return undefined;
      return stringLiteralAs(cell.value, cell.span, field.type, `column '${field.name}' of '${table.name}'`);
    })
    : bindQuery(statement.query, ctx);
  if (query.schema.length !== targetColumns.length) {
    throw new WeirError('INVALID_ARGUMENT', `INSERT INTO '${table.name}' has ${targetColumns.length} target columns but the query produces ${query.schema.length}`, {
      span: statement.query.span,
      hint: `target columns: ${targetColumns.map((i) => target[i]!.name).join(', ')}`,
    });
  }

  const exprs: ScalarExpr[] = target.map((field, index) => {
    const position = targetColumns.indexOf(index);
    if (position < 0) {
      if (!field.type.nullable) throw new WeirError('INVALID_ARGUMENT', `column '${field.name}' is NOT NULL and must be given a value`, { span: statement.span });
      return Exprs.literal(null, field.type);
    }
    const source = query.schema[position]!;
    const ref = Exprs.inputRef(position, source.type);
    // A number into a string column is cast as Calcite's INSERT coercion does (the published Nexmark q6 writes a BIGINT seller into a VARCHAR).
    const numberToString = isNumericType(source.type) && isStringType(field.type);
    if (!sameType(source.type, field.type, { ignoreNullability: true }) && !canAssign(source.type, field.type) && !numberToString) {
      throw new WeirError('TYPE_MISMATCH', `column '${field.name}' of '${table.name}' has type ${formatType(field.type)} but the query produces ${formatType(source.type)} for it`, {
        span: statement.query.span,
        hint: `use CAST(... AS ${formatType(field.type)})`,
      });
    }
    return castTo(ref, field.type);
  });
  const identity = exprs.every((e, i) => e.kind === 'input-ref' && e.index === i) && exprs.length === query.schema.length;
  const input = identity ? query.plan : LogicalProject.create({ input: query.plan, exprs, names: target.map((f) => f.name) });
  return LogicalSink.create({
    input,
    target: {
      qualifiedName: `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${table.name}`,
      name: table.name,
      connector: table.connector.name,
      options: Object.fromEntries(table.options),
      accepts: table.connector.sink.accepts,
      primaryKey: table.primaryKey,
      ...(table.partitionedBy.length === 0 ? {} : { partitionedBy: table.partitionedBy }),
      ...(statement.onConflict === undefined ? {} : { conflictStrategy: statement.onConflict }),
    },
    columns: target,
  });
}
