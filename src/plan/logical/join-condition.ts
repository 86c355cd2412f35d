/**
 * Join conditions, shared by the binder (ON, USING, NATURAL, CROSS) and the optimizer (a WHERE over
 * a cross join), so that both key a join alike: the conjuncts that equate an expression of the left
 * input with one of the right (`=`, or `IS NOT DISTINCT FROM`, under which NULL matches NULL) become
 * the join keys; time bounds between two rowtime attributes make an interval join, equated
 * window_end columns of two window aggregations a window join (interval-join-bounds.ts); the rest
 * filters the joined rows of an inner join and is part of what a match is for an outer join. A join
 * with no key runs as a nested loop over both inputs (one subtask).
 *
 * An equality common to every branch of an OR is pulled out first (Calcite's RexUtil.pullFactors),
 * so `(a.k = b.k AND a.x = 1) OR (a.k = b.k AND a.x = 2)` keys on `a.k = b.k`. Keys of different
 * types are cast to their comparison type (INT with BIGINT: BIGINT; INT with DECIMAL(5, 2):
 * DECIMAL(12, 2)); key expressions that are not plain columns are computed as extra columns of the
 * input, which a projection above the join drops again, so the output is always the left columns
 * followed by the right ones.
 */
import type { IntervalBounds, JoinType } from '../../common/join-type.js';
import type { Field } from '../../common/schema.js';
import { lostTimeAttribute, sameType, SqlTypes, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import type { FunctionRegistry } from '../../expr/function-registry.js';
import { comparisonType } from '../../expr/type-coercion.js';
import { isDeterministic } from './deterministic.js';
import { extractIntervalBounds, windowJoinBounds } from './interval-join-bounds.js';
import { type LogicalNode, LogicalFilter, LogicalJoin, LogicalProject, LogicalSemiJoin } from './logical-node.js';

/** One equality between the inputs: `left` reads only left columns, `right` only right ones (indexed from 0). */
export interface JoinKeyPair {
  readonly left: ScalarExpr;
  readonly right: ScalarExpr;
  /** `IS NOT DISTINCT FROM`: NULL matches NULL. */
  readonly nullSafe: boolean;
  /** The conjunct it was found in (over the left then the right columns). */
  readonly conjunct: ScalarExpr;
}

/** A join condition split into its key equalities and the rest (over the left then the right columns). */
export interface SplitJoinCondition {
  readonly keys: readonly JoinKeyPair[];
  readonly rest: readonly ScalarExpr[];
}

/** The name of the comparison a key uses. */
const NULL_SAFE_EQUALS = 'IS NOT DISTINCT FROM';

/**
 * Splits `condition` (over `leftWidth` left columns then the right ones) into key equalities and the
 * rest, after pulling common factors out of ORs. An equality calling a non-deterministic function
 * is no key (a key is computed once per row, the condition once per pair of rows).
 */
export function splitJoinCondition(condition: ScalarExpr | null, leftWidth: number, functions: FunctionRegistry): SplitJoinCondition {
  const keys: JoinKeyPair[] = [];
  const rest: ScalarExpr[] = [];
  if (condition === null) return { keys, rest };
  for (const conjunct of conjunctsOf(condition).flatMap((c) => conjunctsOf(pullCommonFactors(c, functions)))) {
    const pair = isDeterministic(conjunct, functions) ? keyPair(conjunct, leftWidth) : undefined;
    if (pair === undefined) rest.push(conjunct);
    else keys.push(pair);
  }
  return { keys, rest };
}

/**
 * The join of `left` and `right` on `condition` (over the left then the right columns; null for a
 * cross join): keyed by its equalities between the inputs, an interval join when `interval` is given
 * or found in the condition, a window join when a key equates two window_end columns. An inner
 * join's other conjuncts are a filter above it, an outer join's its `condition`. The output is the
 * left columns then the right ones, nullable on a NULL-padded input; no column of an outer join or
 * of a regular one (neither interval nor window join) is a time attribute any more, as in Flink.
 * The condition's column references are read with the inputs' types (a time attribute that an
 * input below materialized bounds no interval join). `interval` null: a regular join, whatever
 * the condition (a rule keying a regular join must not change its output's time attributes).
 */
export function planJoin(joinType: JoinType, left: LogicalNode, right: LogicalNode, condition: ScalarExpr | null, functions: FunctionRegistry, interval?: IntervalBounds | null): LogicalNode {
  const width = left.schema.length;
  const split = splitJoinCondition(condition === null ? null : retyped(condition, [...left.schema, ...right.schema]), width, functions);
  const found = interval === undefined ? extractIntervalBounds(split.rest, width) : undefined;
  let keys = split.keys;
  let rest = found?.rest ?? split.rest;
  const sqlEqualities = keys.filter((k) => !k.nullSafe);
  const bounds = interval === null ? undefined : (interval ?? found?.bounds ?? windowJoinBounds(left, right, sqlEqualities.map((k) => k.left), sqlEqualities.map((k) => k.right)));
  if (bounds !== undefined && sqlEqualities.length < keys.length) {
    // Interval and window joins take SQL equalities only: a NULL-safe one is checked on each match.
    rest = [...rest, ...keys.filter((k) => k.nullSafe).map((k) => k.conjunct)];
    keys = sqlEqualities;
  }
  const keyTypes = keys.map((k) => (sameType(k.left.type, k.right.type, { ignoreNullability: true }) ? k.left.type : comparisonType(k.left.type, k.right.type)!));
  const leftSide = withKeys(left, keys.map((k, i) => castTo(k.left, keyTypes[i]!)));
  const rightSide = withKeys(right, keys.map((k, i) => castTo(k.right, keyTypes[i]!)));
  const leftWidth = leftSide.plan.schema.length;
  const shift = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => (r.index < width ? r : Exprs.inputRef(r.index - width + leftWidth, r.type)));
  const residual = rest.length === 0 ? null : conjunction(rest.map(shift));
  const outer = joinType !== 'INNER';
  const nullSafe = keys.some((k) => k.nullSafe) ? { nullSafe: keys.map((k) => k.nullSafe) } : {};
  let plan: LogicalNode = LogicalJoin.create({
    joinType,
    left: leftSide.plan,
    right: rightSide.plan,
    leftKeys: leftSide.keys,
    rightKeys: rightSide.keys,
    ...nullSafe,
    condition: outer ? residual : null,
    ...(bounds === undefined ? {} : { interval: bounds }),
  });
  const schema = plan.schema;
  if (!outer && residual !== null) plan = LogicalFilter.create({ input: plan, condition: retyped(residual, schema) });
  if (leftWidth === width && rightSide.plan.schema.length === right.schema.length) return plan;
  const visible = [...left.schema.map((_, i) => i), ...right.schema.map((_, i) => leftWidth + i)];
  return LogicalProject.create({ input: plan, exprs: visible.map((i) => Exprs.inputRef(i, schema[i]!.type)), names: visible.map((i) => schema[i]!.name) });
}

/**
 * The semi join (or, `anti`, the anti join) of `left` and `right` on `condition` (over the left
 * then the right columns): keyed by its equalities between the inputs as {@link planJoin} keys a
 * join, the rest part of what a match is. The output is the left columns (their time attributes
 * materialized: a regular join, as in Flink).
 */
export function planSemiJoin(anti: boolean, left: LogicalNode, right: LogicalNode, condition: ScalarExpr | null, functions: FunctionRegistry): LogicalNode {
  const width = left.schema.length;
  const split = splitJoinCondition(condition, width, functions);
  // NOT IN's `(x = v) IS NOT FALSE`, when all else is keys: the null-aware anti join.
  const nullAware = anti && split.rest.length === 1 ? nullAwarePair(split.rest[0]!, width) : undefined;
  const keys = nullAware === undefined ? split.keys : [...split.keys, nullAware];
  const rest = nullAware === undefined ? split.rest : [];
  const keyTypes = keys.map((k) => (sameType(k.left.type, k.right.type, { ignoreNullability: true }) ? k.left.type : comparisonType(k.left.type, k.right.type)!));
  const leftAll = withKeys(left, keys.map((k, i) => castTo(k.left, keyTypes[i]!)));
  const rightAll = withKeys(right, keys.map((k, i) => castTo(k.right, keyTypes[i]!)));
  const leftSide = nullAware === undefined ? leftAll : { plan: leftAll.plan, keys: leftAll.keys.slice(0, -1) };
  const rightSide = nullAware === undefined ? rightAll : { plan: rightAll.plan, keys: rightAll.keys.slice(0, -1) };
  const leftWidth = leftSide.plan.schema.length;
  const shift = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => (r.index < width ? r : Exprs.inputRef(r.index - width + leftWidth, r.type)));
  const plan: LogicalNode = LogicalSemiJoin.create({
    anti,
    left: leftSide.plan,
    right: rightSide.plan,
    leftKeys: leftSide.keys,
    rightKeys: rightSide.keys,
    ...(keys.some((k) => k.nullSafe) ? { nullSafe: keys.map((k) => k.nullSafe) } : {}),
    condition: rest.length === 0 ? null : conjunction(rest.map(shift)),
    ...(nullAware === undefined ? {} : { nullAwareKey: [leftAll.keys[keys.length - 1]!, rightAll.keys[keys.length - 1]!] as const }),
  });
  if (leftWidth === width) return plan;
  return LogicalProject.create({ input: plan, exprs: plan.schema.slice(0, width).map((f, i) => Exprs.inputRef(i, f.type)), names: left.schema.map((f) => f.name) });
}

/** `(l = r) IS NOT FALSE` with `l` reading only left columns and `r` only right ones, as a key pair. */
function nullAwarePair(conjunct: ScalarExpr, width: number): JoinKeyPair | undefined {
  if (conjunct.kind !== 'call' || conjunct.name !== 'IS NOT FALSE' || conjunct.args.length !== 1) return undefined;
  const pair = keyPair(conjunct.args[0]!, width);
  return pair === undefined || pair.nullSafe ? undefined : pair;
}

/** `expr` with its column references plain TIMESTAMPs where the column of `fields` they read is no time attribute (any more). */
function retyped(expr: ScalarExpr, fields: readonly Field[]): ScalarExpr {
  return remapInputs(expr, (ref) => (lostTimeAttribute(ref.type, fields[ref.index]!.type) ? Exprs.inputRef(ref.index, withoutTimeAttribute(ref.type)) : ref));
}

/** `l = r` or `l IS NOT DISTINCT FROM r` with `l` reading only left columns and `r` only right ones (either order). */
function keyPair(conjunct: ScalarExpr, width: number): JoinKeyPair | undefined {
  if (conjunct.kind !== 'call' || (conjunct.name !== '=' && conjunct.name !== NULL_SAFE_EQUALS) || conjunct.args.length !== 2) return undefined;
  const [a, b] = conjunct.args as [ScalarExpr, ScalarExpr];
  const side = (e: ScalarExpr): 'left' | 'right' | 'both' | 'none' => {
    const refs = inputRefsOf(e);
    if (refs.length === 0) return 'none';
    if (refs.every((r) => r < width)) return 'left';
    if (refs.every((r) => r >= width)) return 'right';
    return 'both';
  };
  const rebase = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => Exprs.inputRef(r.index - width, r.type));
  const nullSafe = conjunct.name === NULL_SAFE_EQUALS;
  if (side(a) === 'left' && side(b) === 'right') return { left: a, right: rebase(b), nullSafe, conjunct };
  if (side(a) === 'right' && side(b) === 'left') return { left: b, right: rebase(a), nullSafe, conjunct };
  return undefined;
}

/** The key columns of one side: plain column references where possible, computed columns appended otherwise. */
function withKeys(plan: LogicalNode, keys: readonly ScalarExpr[]): { plan: LogicalNode; keys: number[] } {
  const extra: ScalarExpr[] = [];
  const indexes = keys.map((k) => {
    if (k.kind === 'input-ref') return k.index;
    extra.push(k);
    return plan.schema.length + extra.length - 1;
  });
  if (extra.length === 0) return { plan, keys: indexes };
  const exprs = [...plan.schema.map((f, i) => Exprs.inputRef(i, f.type)), ...extra];
  const names = [...plan.schema.map((f) => f.name), ...extra.map((_, i) => `$key${i}`)];
  return { plan: LogicalProject.create({ input: plan, exprs, names }), keys: indexes };
}

/** `expr` converted to `type` (keeping its nullability); itself when it has that type already. */
function castTo(expr: ScalarExpr, type: SqlType): ScalarExpr {
  const target = withNullable(type, expr.type.nullable);
  return sameType(expr.type, target, { ignoreNullability: true }) ? expr : Exprs.cast(expr, target);
}

/**
 * `(A AND B) OR (A AND C)` as `A AND (B OR C)`: the conjuncts every branch of an OR shares, pulled
 * out in front of it (valid in SQL's three-valued logic, which distributes as Boolean logic does).
 * A branch left with nothing makes the OR as true as the shared part (`A OR (A AND B)` is `A`).
 * A conjunct calling a non-deterministic function is never shared (each branch evaluates its own).
 * Anything else is returned unchanged.
 */
export function pullCommonFactors(expr: ScalarExpr, functions: FunctionRegistry): ScalarExpr {
  if (expr.kind !== 'call' || expr.name !== 'OR') return expr;
  const branches = disjunctsOf(expr).map(conjunctsOf);
  const keyed = branches.map((conjuncts) => conjuncts.map((c) => [fingerprint(c), c] as const));
  const common = keyed[0]!.filter(([print, c]) => isDeterministic(c, functions) && keyed.every((branch) => branch.some(([p]) => p === print)));
  if (common.length === 0) return expr;
  const shared = new Set(common.map(([print]) => print));
  const remainders = keyed.map((branch) => branch.filter(([print]) => !shared.has(print)).map(([, c]) => c));
  const factors = common.map(([, c]) => c);
  if (remainders.some((r) => r.length === 0)) return conjunction(factors);
  const or = remainders.map(conjunction).reduce((a, b) => Exprs.call('OR', [a, b], SqlTypes.boolean()));
  return conjunction([...factors, or]);
}

/** The conjuncts of a condition: the operands of nested ANDs, or the condition itself. */
function conjunctsOf(condition: ScalarExpr): ScalarExpr[] {
  return condition.kind === 'call' && condition.name === 'AND' ? condition.args.flatMap(conjunctsOf) : [condition];
}

function disjunctsOf(condition: ScalarExpr): ScalarExpr[] {
  return condition.kind === 'call' && condition.name === 'OR' ? condition.args.flatMap(disjunctsOf) : [condition];
}

/** The AND of one or more conjuncts (the conjunct itself when there is one). */
function conjunction(conjuncts: readonly ScalarExpr[]): ScalarExpr {
  return conjuncts.reduce((a, b) => Exprs.call('AND', [a, b], SqlTypes.boolean()));
}

/** Operators whose operands may be swapped: `a = b` and `b = a` are one factor. */
const SYMMETRIC = new Set(['=', '<>', NULL_SAFE_EQUALS, 'IS DISTINCT FROM']);

/** Structural identity of an expression (bigint literals included), the same for both orders of a symmetric comparison. */
function fingerprint(expr: ScalarExpr): string {
  const json = (e: ScalarExpr): string => JSON.stringify(e, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  if (expr.kind !== 'call' || !SYMMETRIC.has(expr.name) || expr.args.length !== 2) return json(expr);
  return `${expr.name}(${expr.args.map(json).sort().join(',')})`;
}
