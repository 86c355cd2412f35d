/**
 * Binds queries and FROM items to logical plans: SELECT blocks (see bind-select.ts), UNION [ALL],
 * INTERSECT [ALL], EXCEPT [ALL], VALUES, WITH, tables (with computed columns and watermarks),
 * views and subqueries.
 */
import { WeirError, type SourceSpan } from '../../common/errors.js';
import type { Field, Schema } from '../../common/schema.js';
import { timeAttributeOf, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import { ExprCompiler } from '../../expr/expr-compiler.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { leastRestrictive } from '../../expr/type-coercion.js';
import { type LogicalNode, LogicalAggregate, LogicalProject, LogicalScan, LogicalSetOperation, LogicalUnion, LogicalValues, LogicalWatermarkAssigner } from '../../plan/logical/logical-node.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE, SYSTEM_DATABASE } from '../catalog/catalog.js';
import { physicalSchema, type CatalogMaterializedView, type CatalogTable } from '../catalog/catalog-objects.js';
import { parseStatement } from '../parse/parser.js';
import type { Expr, Identifier, Query, SetOperation, TableRef, ValuesQuery } from '../parse/ast.js';
import { bindExpr, castTo } from './bind-expr.js';
import { bindCorrelatedAlone, bindCorrelatedJoin, isCorrelated, type CorrelatedRef } from './bind-correlate.js';
import { bindJoin } from './bind-join.js';
import { bindLateralJoin, isLateralJoin } from './bind-lateral.js';
import { bindOrderLimit } from './bind-order-limit.js';
import { bindSelect } from './bind-select.js';
import { bindTemporalJoin, isTemporalJoin } from './bind-temporal-join.js';
import { bindWindowTvf } from './bind-window-tvf.js';
import type { BinderContext, BoundRelation } from './binder-context.js';
import { Scope } from './scope.js';

/** A FROM item once bound: its plan and the scope its columns are visible in. */
export interface BoundFrom {
  readonly plan: LogicalNode;
  readonly scope: Scope;
}

/** Binds a query to a plan. */
export function bindQuery(query: Query, ctx: BinderContext): BoundRelation {
  switch (query.kind) {
    case 'select':
      return bindSelect(query, ctx);
    case 'values':
      return bindValues(query, ctx);
    case 'with': {
      let inner = ctx;
      for (const cte of query.ctes) inner = inner.withCte(cte.name.name, cte.query, cte.columns?.map((c) => c.name));
      return bindQuery(query.body, inner);
    }
    case 'set-operation':
      return bindOrderLimit(bindSetOperation(query, ctx), query, ctx);
  }
}

/** Binds a FROM item. */
export function bindFrom(ref: TableRef, ctx: BinderContext): BoundFrom {
  switch (ref.kind) {
    case 'named-table': {
      if (ref.forSystemTimeAsOf !== undefined) {
        throw new WeirError('UNSUPPORTED', 'FOR SYSTEM_TIME AS OF is only supported on the right side of a JOIN (a temporal join)', { span: ref.span });
      }
      const name = ref.name.parts.map((p) => p.name).join('.');
      const relation = bindNamedRelation(ref.name.parts, ctx, ref.name.span);
      return aliased(relation, ref.alias?.name ?? ref.name.parts[ref.name.parts.length - 1]!.name ?? name, ref.columnAliases, ref.span);
    }
    case 'derived-table': {
      const relation = ref.lateral ? bindLateralSubquery(ref.query, ctx) : bindQuery(ref.query, ctx);
      return aliased(relation, ref.alias?.name, ref.columnAliases, ref.span);
    }
    case 'join':
      if (isLateralJoin(ref)) return bindLateralJoin(ref, bindFrom(ref.left, ctx), ctx);
      if (isCorrelated(ref.right)) return bindCorrelatedJoin({ ...ref, right: ref.right as CorrelatedRef }, bindFrom(ref.left, ctx), ctx);
      if (isTemporalJoin(ref)) return bindTemporalJoin(ref, bindFrom(ref.left, ctx), ctx);
      return bindJoin(ref, bindFrom(ref.left, ctx), bindFrom(ref.right, ctx), ctx);
    case 'table-function': {
      if (isCorrelated(ref)) return bindCorrelatedAlone(ref, ctx);
      const relation = bindWindowTvf(ref.call, ctx, (arg) => bindNamedRelation(arg.name.parts, ctx, arg.name.span));
      return aliased(relation, ref.alias?.name, ref.columnAliases, ref.span);
    }
    case 'unnest':
      return bindCorrelatedAlone(ref, ctx);
  }
}

/**
 * `LATERAL (query)` alone (not the right side of a join, which bind-lateral.ts correlates with the
 * items to its left): bound like any subquery; a column it cannot resolve is reported as such.
 */
function bindLateralSubquery(query: Query, ctx: BinderContext): BoundRelation {
  try {
    return bindQuery(query, ctx);
  } catch (error) {
    if (!(error instanceof WeirError) || (error.code !== 'UNKNOWN_TABLE' && error.code !== 'UNKNOWN_COLUMN')) throw error;
    throw new WeirError(error.code, `${error.message} (a LATERAL subquery cannot read the FROM items to its left)`, {
      span: error.span,
      hint: 'for rows computed from each row use UNNEST(...) or LATERAL TABLE(f(...)); otherwise join the subquery with ON',
      cause: error,
    });
  }
}

function bindNamedRelation(parts: readonly Identifier[], ctx: BinderContext, span: SourceSpan): BoundRelation {
  const name = relationName(parts, span);
  const cte = parts.length === 1 ? ctx.cte(name) : undefined;
  if (cte !== undefined && 'relation' in cte) return cte.relation;
  if (cte !== undefined) return renamed(bindQuery(cte.query, cte.context), cte.columnNames, span);
  const materialized = ctx.catalog.find(name) === undefined ? ctx.catalog.materializedView(name) : undefined;
  if (materialized !== undefined) return bindMaterializedViewQuery(materialized, ctx, span);
  const relation = ctx.catalog.get(name, span);
  if (relation.kind === 'view') {
    return renamed(bindQuery(relation.query, ctx.enterView(relation.name, span)), relation.columnNames, span);
  }
  return bindTableScan(relation, ctx);
}

/**
 * A materialized view read by a query: its definition, bound again (as Flink expands a view), so
 * that the query follows the view's changelog inside weir — computed from the view's own inputs,
 * never by polling its Postgres table — with the view's column names.
 */
function bindMaterializedViewQuery(view: CatalogMaterializedView, ctx: BinderContext, span: SourceSpan): BoundRelation {
  const statement = parseStatement(view.queryText);
  if (statement.kind !== 'query') throw new WeirError('INTERNAL_ERROR', `materialized view '${view.name}' holds no query: ${view.queryText}`);
  const bound = bindQuery(withoutOrder(statement.query), ctx.enterView(view.name, span));
  return renamed(bound, view.schema.map((f) => f.name), span);
}

/** The query without its top-level ORDER BY when it has no LIMIT or OFFSET (a view's table has no order). */
export function withoutOrder(query: Query): Query {
  switch (query.kind) {
    case 'select':
      return query.orderBy.length > 0 && query.limit === undefined && query.offset === undefined ? { ...query, orderBy: [] } : query;
    case 'set-operation':
      return query.orderBy.length > 0 && query.limit === undefined && query.offset === undefined ? { ...query, orderBy: [] } : query;
    case 'with':
      return { ...query, body: withoutOrder(query.body) };
    case 'values':
      return query;
  }
}

/**
 * The catalog name of a relation read by a query: {@link objectName}, or `weir.<table>` for a
 * system table (`weir.jobs`, `default_catalog.weir.jobs`).
 */
export function relationName(parts: readonly Identifier[], span: SourceSpan): string {
  const names = parts.map((p) => p.name);
  const database = names.length === 3 && names[0] === DEFAULT_CATALOG ? names[1] : names.length === 2 ? names[0] : undefined;
  if (database?.toLowerCase() === SYSTEM_DATABASE) return `${SYSTEM_DATABASE}.${names[names.length - 1]!}`;
  return objectName(parts, span);
}

/** The object name of `t`, `default_database.t` or `default_catalog.default_database.t`. */
export function objectName(parts: readonly Identifier[], span: SourceSpan): string {
  const names = parts.map((p) => p.name);
  const last = names[names.length - 1]!;
  const prefix = names.slice(0, -1);
  if (prefix[prefix.length - 1]?.toLowerCase() === SYSTEM_DATABASE) {
    throw new WeirError('INVALID_ARGUMENT', `database '${SYSTEM_DATABASE}' holds weir's read-only system tables; objects cannot be created in it, dropped from it or written to it`, {
      span,
      hint: `SELECT from ${SYSTEM_DATABASE}.jobs, ${SYSTEM_DATABASE}.operators or ${SYSTEM_DATABASE}.checkpoints`,
    });
  }
  const expected = [DEFAULT_CATALOG, DEFAULT_DATABASE].slice(2 - prefix.length);
  if (prefix.length > 2 || prefix.some((p, i) => p !== expected[i])) {
    throw new WeirError('UNKNOWN_TABLE', `catalog or database '${prefix.join('.')}' does not exist; weir has only ${DEFAULT_CATALOG}.${DEFAULT_DATABASE}`, { span });
  }
  return last;
}

/**
 * A table as queries see it: its physical columns from the connector, then its computed columns
 * in declaration order, then its watermark, whose column becomes the rowtime attribute.
 */
export function bindTableScan(table: CatalogTable, _ctx: BinderContext): BoundRelation {
  const physical = physicalSchema(table);
  let plan: LogicalNode = LogicalScan.create({
    source: {
      qualifiedName: table.name.startsWith(`${SYSTEM_DATABASE}.`) ? `${DEFAULT_CATALOG}.${table.name}` : `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${table.name}`,
      name: table.name,
      connector: table.connector.name,
      options: Object.fromEntries(table.options),
      changelog: table.traits?.changelog ?? table.connector.source?.changelog ?? 'insert-only',
      bounded: table.traits?.bounded ?? false,
      replayable: table.traits?.replayable ?? false,
      primaryKey: table.primaryKey,
    },
    columns: physical,
  });
  if (table.columns.some((c) => c.kind === 'computed')) {
    let physicalIndex = 0;
    const exprs = table.columns.map((c) => (c.kind === 'computed' ? c.expr : Exprs.inputRef(physicalIndex++, c.type)));
    plan = LogicalProject.create({ input: plan, exprs, names: table.columns.map((c) => c.name) });
  }
  if (table.watermark !== undefined) {
    const rowtimeIndex = plan.schema.findIndex((f) => f.name === table.watermark!.column);
    plan = LogicalWatermarkAssigner.create({ input: plan, rowtimeIndex, watermark: table.watermark.expr });
  }
  return { plan, schema: plan.schema };
}

function aliased(relation: BoundRelation, alias: string | undefined, columnAliases: readonly Identifier[] | undefined, span: SourceSpan): BoundFrom {
  const renamedRelation = renamed(relation, columnAliases?.map((c) => c.name), span);
  return { plan: renamedRelation.plan, scope: Scope.of(renamedRelation.schema, alias) };
}

/** The relation with its columns renamed (`AS t(a, b)`, `CREATE VIEW v (a, b)`); the counts must match. */
export function renamed(relation: BoundRelation, names: readonly string[] | undefined, span: SourceSpan): BoundRelation {
  if (names === undefined) return relation;
  if (names.length !== relation.schema.length) {
    throw new WeirError('INVALID_ARGUMENT', `${names.length} column names given for a relation with ${relation.schema.length} columns`, { span });
  }
  const schema = relation.schema.map((f, i) => ({ name: names[i]!, type: f.type }));
  const exprs = relation.schema.map((f, i) => Exprs.inputRef(i, f.type));
  return { plan: LogicalProject.create({ input: relation.plan, exprs, names }), schema };
}

/**
 * Binds one cell of VALUES in a way of its own, or gives undefined for the usual binding: INSERT
 * reads a string literal as a value of its target column's type (see bind-insert.ts).
 */
export type ValuesCellBinder = (cell: Expr, column: number) => ScalarExpr | undefined;

/** Binds `VALUES (...), (...)`: each column typed as the least restrictive type of its cells, every cell a constant. */
export function bindValues(query: ValuesQuery, ctx: BinderContext, bindCell?: ValuesCellBinder): BoundRelation {
  const scope = new Scope([]);
  const rows = query.rows.map((row) => row.map((e, i) => bindCell?.(e, i) ?? bindExpr(e, { scope, functions: ctx.functions, clause: 'VALUES' })));
  const width = rows[0]?.length ?? 0;
  if (rows.some((r) => r.length !== width)) {
    throw new WeirError('INVALID_ARGUMENT', 'all VALUES rows must have the same number of columns', { span: query.span });
  }
  const types = Array.from({ length: width }, (_, column) => {
    const type = leastRestrictive(rows.map((r) => r[column]!.type));
    if (type === undefined) {
      throw new WeirError('TYPE_MISMATCH', `VALUES column ${column + 1} mixes incompatible types: ${rows.map((r) => r[column]!.type.kind).join(', ')}`, { span: query.span });
    }
    return type;
  });
  const schema: Schema = types.map((type, i) => ({ name: `EXPR$${i}`, type }));
  const compiler = new ExprCompiler(ctx.functions, { timeZone: ctx.timeZone });
  const values = rows.map((row) => row.map((expr, i) => evaluateConstant(castTo(expr, types[i]!), compiler, query.span)));
  return { plan: LogicalValues.create({ rows: values, columns: schema }), schema };
}

function evaluateConstant(expr: ScalarExpr, compiler: ExprCompiler, span: SourceSpan): unknown {
  try {
    return compiler.scalar(expr)([]);
  } catch (error) {
    if (error instanceof WeirError && error.code !== 'INTERNAL_ERROR') throw error.withSpan(span);
    if (error instanceof WeirError) throw error;
    throw new WeirError('INVALID_ARGUMENT', `VALUES may only contain constant expressions`, { span, cause: error });
  }
}

/**
 * A set operation without its ORDER BY / LIMIT. UNION ALL is a union; UNION is a union of its
 * operands followed by a DISTINCT aggregate over every column (as Flink plans it), where the
 * operands of nested UNIONs and UNION ALLs below it are gathered into one union, since the
 * DISTINCT above removes the duplicates of all of them; INTERSECT [ALL] and EXCEPT [ALL] are a
 * set-operation node. Columns are unified as for UNION ALL ({@link unifyColumns}); the result of
 * a distinct or counting set operation has no time attribute.
 */
function bindSetOperation(query: SetOperation, ctx: BinderContext): BoundRelation {
  const what = `${query.op}${query.all ? ' ALL' : ''}`;
  if (query.op === 'UNION' && query.all) return bindUnionAll([bindQuery(query.left, ctx), bindQuery(query.right, ctx)], query.span);
  if (query.op === 'UNION') {
    const union = unifyColumns(unionOperands(query).map((operand) => bindQuery(operand, ctx)), query.span, what);
    const schema = materialized(union.schema);
    const all: LogicalNode = LogicalUnion.create({ inputs: union.plans });
    // Grouped columns are no longer time attributes.
    const input = schema.every((f, i) => timeAttributeOf(f.type) === timeAttributeOf(all.schema[i]!.type)) ? all : LogicalProject.create({ input: all, exprs: schema.map((f, i) => Exprs.inputRef(i, f.type)), names: schema.map((f) => f.name) });
    const plan: LogicalNode = LogicalAggregate.create({ input, keys: schema.map((_, i) => i), calls: [] });
    return { plan, schema };
  }
  const { schema: unified, plans } = unifyColumns([bindQuery(query.left, ctx), bindQuery(query.right, ctx)], query.span, what);
  const schema = materialized(unified);
  return { plan: LogicalSetOperation.create({ op: query.op, all: query.all, left: plans[0]!, right: plans[1]! }), schema };
}

/**
 * The operands of a UNION (distinct): its two sides, each replaced by its own operands when it is
 * a UNION or UNION ALL without ORDER BY or LIMIT of its own.
 */
function unionOperands(query: Query): Query[] {
  if (query.kind !== 'set-operation' || query.op !== 'UNION' || query.orderBy.length > 0 || query.limit !== undefined) return [query];
  return [...unionOperands(query.left), ...unionOperands(query.right)];
}

/** The schema with its time attributes dropped (a set operation's rows are no longer in time order). */
function materialized(schema: Schema): Field[] {
  return schema.map((f) => ({ name: f.name, type: withoutTimeAttribute(f.type) }));
}

/**
 * UNION ALL: same column count; each column gets the least restrictive of the inputs' types, and
 * stays a time attribute when it is the same kind of time attribute in every input (as in Flink).
 */
export function bindUnionAll(inputs: readonly BoundRelation[], span: SourceSpan): BoundRelation {
  const { schema, plans } = unifyColumns(inputs, span, 'UNION ALL');
  return { plan: LogicalUnion.create({ inputs: plans }), schema };
}

/**
 * The common schema of the inputs of a set operation (`what`: `UNION ALL`, `INTERSECT`, ...) and
 * each input cast to it: the same column count is required; each column is named as in the first
 * input, gets the least restrictive of the inputs' types (nullable when any input's is), and
 * stays a time attribute when it is the same kind of time attribute in every input (as in Flink).
 */
function unifyColumns(inputs: readonly BoundRelation[], span: SourceSpan, what: string): { schema: Field[]; plans: LogicalNode[] } {
  const width = inputs[0]!.schema.length;
  for (const input of inputs) {
    if (input.schema.length !== width) {
      throw new WeirError('INVALID_ARGUMENT', `${what} inputs have different numbers of columns: ${inputs.map((i) => i.schema.length).join(' and ')}`, { span });
    }
  }
  const schema: Field[] = inputs[0]!.schema.map((field, column) => {
    const type = leastRestrictive(inputs.map((i) => i.schema[column]!.type));
    if (type === undefined) {
      throw new WeirError('TYPE_MISMATCH', `${what} column '${field.name}' has incompatible types: ${inputs.map((i) => i.schema[column]!.type.kind).join(' and ')}`, { span });
    }
    const common = withNullable(type, inputs.some((i) => i.schema[column]!.type.nullable));
    const attributes = new Set(inputs.map((i) => timeAttributeOf(i.schema[column]!.type)));
    const [attribute] = attributes;
    const keepsAttribute = attributes.size === 1 && attribute !== undefined && (common.kind === 'TIMESTAMP' || common.kind === 'TIMESTAMP_LTZ');
    return { name: field.name, type: keepsAttribute ? ({ ...common, timeAttribute: attribute } as SqlType) : common };
  });
  const plans = inputs.map((input) => {
    const exprs = input.schema.map((f, i) => castTo(Exprs.inputRef(i, f.type), schema[i]!.type));
    const identity = exprs.every((e, i) => e.kind === 'input-ref' && e.index === i);
    return identity ? input.plan : LogicalProject.create({ input: input.plan, exprs, names: schema.map((f) => f.name) });
  });
  return { schema, plans };
}
