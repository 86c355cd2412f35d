/**
 * Binds a temporal join, `left [LEFT] JOIN t FOR SYSTEM_TIME AS OF left.time [AS alias] ON ...`.
 * When `left.time` is a processing-time attribute it is a lookup join (Flink's processing-time
 * temporal join against a lookup source): `t` must be a table whose connector can be looked up,
 * and the ON condition must equate columns of `t` with expressions over the left side; those
 * columns are the lookup keys (the left expressions cast to their types), the rest of the
 * condition filters the matches. When `left.time` is an event-time attribute it is an event-time
 * temporal join against a versioned table: the right side must have a unique key (a PRIMARY KEY)
 * and an event-time attribute (a watermark), and the ON condition must equate every key column
 * with an expression of the left side.
 */
import { WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { withNullable, withoutTimeAttribute } from '../../common/sql-type.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { comparisonType } from '../../expr/type-coercion.js';
import { type LogicalNode, LogicalLookupJoin, LogicalProject, LogicalTemporalJoin } from '../../plan/logical/logical-node.js';
import { uniqueKey } from '../../plan/logical/unique-key.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../catalog/catalog.js';
import { physicalSchema, type CatalogTable } from '../catalog/catalog-objects.js';
import type { Expr, JoinRef, NamedTable } from '../parse/ast.js';
import { bindExpr, castTo } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import { bindFrom, objectName, type BoundFrom } from './bind-query.js';
import { Scope } from './scope.js';

/** A join whose right side is a table `FOR SYSTEM_TIME AS OF` a time of the left side. */
export type TemporalJoinRef = JoinRef & { readonly right: NamedTable & { readonly forSystemTimeAsOf: Expr } };

/** True when `ref` joins a table `FOR SYSTEM_TIME AS OF` (bound by {@link bindTemporalJoin}). */
export function isTemporalJoin(ref: JoinRef): ref is TemporalJoinRef {
  return ref.right.kind === 'named-table' && ref.right.forSystemTimeAsOf !== undefined;
}

/** Binds a temporal join whose left side is already bound (see the module comment). */
export function bindTemporalJoin(ref: TemporalJoinRef, left: BoundFrom, ctx: BinderContext): BoundFrom {
  const right = ref.right;
  if (ref.type !== 'INNER' && ref.type !== 'LEFT') {
    throw new WeirError('UNSUPPORTED', `${ref.type} JOIN ... FOR SYSTEM_TIME AS OF is not supported; a temporal join is an INNER or LEFT join`, { span: ref.span });
  }
  const time = bindExpr(right.forSystemTimeAsOf, { scope: left.scope, functions: ctx.functions, clause: 'ON' });
  const attribute = (time.type.kind === 'TIMESTAMP' || time.type.kind === 'TIMESTAMP_LTZ') && time.kind === 'input-ref' ? time.type.timeAttribute : undefined;
  if (attribute === 'rowtime') return bindEventTimeJoin(ref, left, (time as { index: number }).index, ctx);
  if (attribute !== 'proctime') {
    throw new WeirError('INVALID_ARGUMENT', 'FOR SYSTEM_TIME AS OF must name a time attribute column of the left side of the join', {
      span: right.forSystemTimeAsOf.span,
      hint: 'add PROCTIME() AS proc_time to the left side and write FOR SYSTEM_TIME AS OF l.proc_time',
    });
  }
  const table = lookupTable(right, ctx);
  const schema = physicalSchema(table);
  const alias = right.alias?.name ?? table.name;
  const on = splitCondition(ref, left, Scope.of(schema, alias), ctx);
  if (on.rightKeys.length === 0) {
    throw new WeirError('INVALID_ARGUMENT', `the ON condition of a lookup join must equate a column of the lookup table '${table.name}' with an expression of the left side`, {
      span: ref.on!.span,
      hint: `e.g. ON ${alias}.${schema[0]?.name ?? 'id'} = <left column>`,
    });
  }
  return joined(ref, left, schema, alias, on, (input, condition) => LogicalLookupJoin.create({
    input: input.plan,
    table: { qualifiedName: `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${table.name}`, name: table.name, connector: table.connector.name, options: Object.fromEntries(table.options), schema, keys: on.rightKeys },
    joinType: ref.type as 'INNER' | 'LEFT',
    inputKeys: input.keys,
    condition,
  }));
}

/** The event-time temporal join of `left` with the versioned relation `ref.right` as of left column `leftTime`. */
function bindEventTimeJoin(ref: TemporalJoinRef, left: BoundFrom, leftTime: number, ctx: BinderContext): BoundFrom {
  const { forSystemTimeAsOf: _asOf, ...plain } = ref.right;
  const right = bindFrom(plain, ctx);
  const name = ref.right.name.parts.map((p) => p.name).join('.');
  const rightTime = right.plan.schema.findIndex((f) => (f.type.kind === 'TIMESTAMP' || f.type.kind === 'TIMESTAMP_LTZ') && f.type.timeAttribute === 'rowtime');
  if (rightTime < 0) {
    throw new WeirError('INVALID_ARGUMENT', `'${name}' is not a versioned table: it has no event-time attribute`, { span: ref.right.name.span, hint: 'declare WATERMARK FOR its version time column' });
  }
  const key = uniqueKey(right.plan);
  if (key === undefined) {
    throw new WeirError('INVALID_ARGUMENT', `'${name}' is not a versioned table: it has no primary key`, { span: ref.right.name.span, hint: 'declare PRIMARY KEY (...) NOT ENFORCED' });
  }
  const schema = right.plan.schema.map((f) => ({ name: f.name, type: withoutTimeAttribute(f.type) }));
  const on = splitCondition(ref, left, new Scope(right.scope.columns.map((c, i) => ({ ...c, type: schema[i]!.type }))), ctx);
  const missing = key.filter((k) => !on.rightKeys.includes(k));
  if (missing.length > 0) {
    throw new WeirError('INVALID_ARGUMENT', `the ON condition of a temporal join must equate every primary key column of '${name}' with the left side; missing: ${missing.map((k) => schema[k]!.name).join(', ')}`, { span: ref.on!.span });
  }
  const alias = ref.right.alias?.name ?? ref.right.name.parts[ref.right.name.parts.length - 1]!.name;
  // The versions' columns, no longer time attributes in the join's output.
  const rightPlan: LogicalNode = LogicalProject.create({ input: right.plan, exprs: schema.map((f, i) => Exprs.inputRef(i, f.type)), names: schema.map((f) => f.name) });
  return joined(ref, left, schema, alias, on, (input, condition) => LogicalTemporalJoin.create({
    left: input.plan,
    right: rightPlan,
    joinType: ref.type as 'INNER' | 'LEFT',
    leftKeys: input.keys,
    rightKeys: on.rightKeys,
    leftTimeIndex: leftTime,
    rightTimeIndex: rightTime,
    condition,
  }));
}


/** The ON condition split into key pairs (a right column = a left expression, cast to the column's type) and the rest. */
interface SplitCondition {
  readonly rightKeys: number[];
  readonly leftKeyExprs: ScalarExpr[];
  readonly residual: ScalarExpr[];
}

function splitCondition(ref: JoinRef, left: BoundFrom, right: Scope, ctx: BinderContext): SplitCondition {
  if (ref.on === undefined) throw new WeirError('INVALID_ARGUMENT', 'a temporal join needs an ON condition equating columns of the joined table', { span: ref.span });
  const width = left.scope.columns.length;
  const condition = bindExpr(ref.on, { scope: left.scope.concat(right), functions: ctx.functions, clause: 'ON' });
  const split: SplitCondition = { rightKeys: [], leftKeyExprs: [], residual: [] };
  for (const conjunct of conjunctsOf(condition)) {
    const pair = lookupPair(conjunct, width);
    if (pair === undefined || split.rightKeys.includes(pair.column)) {
      split.residual.push(conjunct);
      continue;
    }
    const column = right.columns[pair.column]!;
    if (comparisonType(pair.input.type, column.type) === undefined) {
      throw new WeirError('TYPE_MISMATCH', `cannot join column '${column.name}' (${column.type.kind}) with a ${pair.input.type.kind} value`, { span: ref.on.span });
    }
    split.rightKeys.push(pair.column);
    split.leftKeyExprs.push(castTo(pair.input, column.type));
  }
  return split;
}

/**
 * The join node `make` builds over the left side with its key expressions appended, with the
 * residual condition over (left, right) and the right columns nullable for a LEFT join; projected
 * to the columns the query sees.
 */
function joined(
  ref: JoinRef,
  left: BoundFrom,
  rightSchema: Schema,
  alias: string,
  on: SplitCondition,
  make: (input: { plan: LogicalNode; keys: number[] }, condition: ScalarExpr | null) => LogicalNode,
): BoundFrom {
  const width = left.scope.columns.length;
  const input = withAppendedKeys(left.plan, on.leftKeyExprs);
  const inputWidth = input.plan.schema.length;
  const tableSchema = ref.type === 'LEFT' ? rightSchema.map((f) => ({ name: f.name, type: withNullable(f.type, true) })) : rightSchema;
  const joinedSchema = [...input.plan.schema, ...tableSchema];
  const shift = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => (r.index < width ? r : Exprs.inputRef(r.index - width + inputWidth, r.type)));
  const filter = on.residual.map(shift).reduce<ScalarExpr | null>((a, b) => (a === null ? b : Exprs.call('AND', [a, b], { kind: 'BOOLEAN', nullable: true })), null);
  const plan = make(input, filter);
  const visible = [...left.scope.columns.map((_, i) => i), ...tableSchema.map((_, i) => inputWidth + i)];
  const projected: LogicalNode =
    visible.length === joinedSchema.length ? plan : LogicalProject.create({ input: plan, exprs: visible.map((i) => Exprs.inputRef(i, joinedSchema[i]!.type)), names: visible.map((i) => joinedSchema[i]!.name) });
  return { plan: projected, scope: left.scope.concat(Scope.of(tableSchema, alias)) };
}

/** The catalog table a lookup join reads; it must be a table whose connector can be looked up. */
function lookupTable(right: NamedTable, ctx: BinderContext): CatalogTable {
  const name = objectName(right.name.parts, right.name.span);
  const relation = right.name.parts.length === 1 && ctx.cte(name) !== undefined ? undefined : ctx.catalog.get(name, right.name.span);
  if (relation?.kind !== 'table') {
    throw new WeirError('UNSUPPORTED', `'${name}' is a ${relation === undefined ? 'WITH query' : 'view'}; a lookup join (FOR SYSTEM_TIME AS OF a processing-time attribute) reads a table`, {
      span: right.name.span,
    });
  }
  if (relation.connector.lookup !== true) {
    throw new WeirError('UNSUPPORTED', `table '${relation.name}' (connector '${relation.connector.name}') cannot be looked up, so it cannot be the table of a lookup join`, {
      span: right.name.span,
      hint: 'lookup joins read tables of the postgres or filesystem connectors',
    });
  }
  if (relation.columns.some((c) => c.kind === 'computed')) {
    throw new WeirError('UNSUPPORTED', `the lookup table '${relation.name}' has computed columns, which lookup joins do not support yet`, { span: right.name.span });
  }
  return relation;
}

function conjunctsOf(expr: ScalarExpr): ScalarExpr[] {
  return expr.kind === 'call' && expr.name === 'AND' ? expr.args.flatMap(conjunctsOf) : [expr];
}

/** `t.column = expr` (either order) with `expr` reading only left columns (index < width): the lookup table's column and the left expression. */
function lookupPair(expr: ScalarExpr, width: number): { column: number; input: ScalarExpr } | undefined {
  if (expr.kind !== 'call' || expr.name !== '=' || expr.args.length !== 2) return undefined;
  const [a, b] = expr.args as [ScalarExpr, ScalarExpr];
  const leftOnly = (e: ScalarExpr): boolean => {
    const refs = inputRefsOf(e);
    return refs.length > 0 && refs.every((r) => r < width);
  };
  if (a.kind === 'input-ref' && a.index >= width && leftOnly(b)) return { column: a.index - width, input: b };
  if (b.kind === 'input-ref' && b.index >= width && leftOnly(a)) return { column: b.index - width, input: a };
  return undefined;
}

/** The input with the key expressions available as columns: plain column references as they are, others appended. */
function withAppendedKeys(plan: LogicalNode, keys: readonly ScalarExpr[]): { plan: LogicalNode; keys: number[] } {
  const extra: ScalarExpr[] = [];
  const indexes = keys.map((k) => (k.kind === 'input-ref' ? k.index : plan.schema.length + extra.push(k) - 1));
  if (extra.length === 0) return { plan, keys: indexes };
  const exprs = [...plan.schema.map((f, i) => Exprs.inputRef(i, f.type)), ...extra];
  const names = [...plan.schema.map((f) => f.name), ...extra.map((_, i) => `$f${plan.schema.length + i}`)];
  return { plan: LogicalProject.create({ input: plan, exprs, names }), keys: indexes };
}
