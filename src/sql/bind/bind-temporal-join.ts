/**
 * Binds a temporal join, `left [LEFT] JOIN t FOR SYSTEM_TIME AS OF left.time [AS alias] ON ...`.
 * When `left.time` is a processing-time attribute it is a lookup join (Flink's processing-time
 * temporal join against a lookup source): `t` must be a table whose connector can be looked up,
 * and the ON condition must equate columns of `t` with expressions over the left side; those
 * columns are the lookup keys (the left expressions cast to their types), the rest of the
 * condition filters the matches. Temporal joins on event time are refused (not supported yet).
 */
import { WeirError } from '../../common/errors.js';
import { withNullable } from '../../common/sql-type.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { comparisonType } from '../../expr/type-coercion.js';
import type { LogicalNode } from '../../plan/logical/logical-node.js';
import { DEFAULT_CATALOG, DEFAULT_DATABASE } from '../catalog/catalog.js';
import { physicalSchema, type CatalogTable } from '../catalog/catalog-objects.js';
import type { Expr, JoinRef, NamedTable } from '../parse/ast.js';
import { bindExpr, castTo } from './bind-expr.js';
import type { BinderContext } from './binder-context.js';
import { objectName, type BoundFrom } from './bind-query.js';
import { Scope } from './scope.js';

/** True when `ref` joins a table `FOR SYSTEM_TIME AS OF` (bound by {@link bindTemporalJoin}). */
export function isTemporalJoin(ref: JoinRef): ref is JoinRef & { readonly right: NamedTable & { readonly forSystemTimeAsOf: Expr } } {
  return ref.right.kind === 'named-table' && ref.right.forSystemTimeAsOf !== undefined;
}

/** Binds a temporal join whose left side is already bound (see the module comment). */
export function bindTemporalJoin(ref: JoinRef & { readonly right: NamedTable & { readonly forSystemTimeAsOf: Expr } }, left: BoundFrom, ctx: BinderContext): BoundFrom {
  const right = ref.right;
  if (ref.type !== 'INNER' && ref.type !== 'LEFT') {
    throw new WeirError('UNSUPPORTED', `${ref.type} JOIN ... FOR SYSTEM_TIME AS OF is not supported; a temporal join is an INNER or LEFT join`, { span: ref.span });
  }
  const time = bindExpr(right.forSystemTimeAsOf, { scope: left.scope, functions: ctx.functions, clause: 'ON' });
  const attribute = (time.type.kind === 'TIMESTAMP' || time.type.kind === 'TIMESTAMP_LTZ') && time.kind === 'input-ref' ? time.type.timeAttribute : undefined;
  if (attribute === 'rowtime') {
    throw new WeirError('UNSUPPORTED', 'event-time temporal joins (FOR SYSTEM_TIME AS OF an event-time attribute) are not supported yet', {
      span: right.forSystemTimeAsOf.span,
      hint: 'a lookup join is: FOR SYSTEM_TIME AS OF a processing-time attribute, e.g. a column PROCTIME() AS proc_time of the left side',
    });
  }
  if (attribute !== 'proctime') {
    throw new WeirError('INVALID_ARGUMENT', 'FOR SYSTEM_TIME AS OF must name a time attribute column of the left side of the join', {
      span: right.forSystemTimeAsOf.span,
      hint: 'add PROCTIME() AS proc_time to the left side and write FOR SYSTEM_TIME AS OF l.proc_time',
    });
  }
  const table = lookupTable(right, ctx);
  const schema = physicalSchema(table);
  const alias = right.alias?.name ?? table.name;
  if (ref.on === undefined) throw new WeirError('INVALID_ARGUMENT', 'a lookup join needs an ON condition equating columns of the lookup table', { span: ref.span });
  const width = left.scope.columns.length;
  const condition = bindExpr(ref.on, { scope: left.scope.concat(Scope.of(schema, alias)), functions: ctx.functions, clause: 'ON' });
  const lookupKeys: number[] = [];
  const inputKeyExprs: ScalarExpr[] = [];
  const residual: ScalarExpr[] = [];
  for (const conjunct of conjunctsOf(condition)) {
    const pair = lookupPair(conjunct, width);
    if (pair === undefined || lookupKeys.includes(pair.column)) {
      residual.push(conjunct);
      continue;
    }
    const columnType = schema[pair.column]!.type;
    if (comparisonType(pair.input.type, columnType) === undefined) {
      throw new WeirError('TYPE_MISMATCH', `cannot look up column '${schema[pair.column]!.name}' (${columnType.kind}) by a ${pair.input.type.kind} value`, { span: ref.on.span });
    }
    lookupKeys.push(pair.column);
    inputKeyExprs.push(castTo(pair.input, columnType));
  }
  if (lookupKeys.length === 0) {
    throw new WeirError('INVALID_ARGUMENT', `the ON condition of a lookup join must equate a column of the lookup table '${table.name}' with an expression of the left side`, {
      span: ref.on.span,
      hint: `e.g. ON ${alias}.${schema[0]?.name ?? 'id'} = <left column>`,
    });
  }
  const input = withAppendedKeys(left.plan, inputKeyExprs);
  const inputWidth = input.plan.schema.length;
  const tableSchema = ref.type === 'LEFT' ? schema.map((f) => ({ name: f.name, type: withNullable(f.type, true) })) : schema;
  const joinedSchema = [...input.plan.schema, ...tableSchema];
  const shift = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => (r.index < width ? r : Exprs.inputRef(r.index - width + inputWidth, r.type)));
  const filter = residual.map(shift).reduce<ScalarExpr | null>((a, b) => (a === null ? b : Exprs.call('AND', [a, b], { kind: 'BOOLEAN', nullable: true })), null);
  const plan: LogicalNode = {
    kind: 'lookup-join',
    input: input.plan,
    table: { qualifiedName: `${DEFAULT_CATALOG}.${DEFAULT_DATABASE}.${table.name}`, name: table.name, connector: table.connector.name, options: Object.fromEntries(table.options), schema, keys: lookupKeys },
    joinType: ref.type,
    inputKeys: input.keys,
    condition: filter,
    schema: joinedSchema,
  };
  const visible = [...left.scope.columns.map((_, i) => i), ...tableSchema.map((_, i) => inputWidth + i)];
  const projected: LogicalNode =
    visible.length === joinedSchema.length ? plan : { kind: 'project', input: plan, exprs: visible.map((i) => Exprs.inputRef(i, joinedSchema[i]!.type)), schema: visible.map((i) => joinedSchema[i]!) };
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
  const schema = [...plan.schema, ...extra.map((e, i) => ({ name: `$f${plan.schema.length + i}`, type: e.type }))];
  return { plan: { kind: 'project', input: plan, exprs, schema }, keys: indexes };
}
