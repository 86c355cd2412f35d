/**
 * RisingWave's dynamic filter: an inner join without keys whose one input has at most one row (a
 * global aggregate, `FROM t, (SELECT MAX(v) AS m FROM u) s WHERE t.x > s.m`, or the join a scalar
 * subquery `t.x > (SELECT MAX(v) FROM u)` becomes), whose condition is one comparison (`<`, `<=`,
 * `>`, `>=`) between an expression of the other input and one of that row, and whose one-row
 * columns nothing above reads, becomes a DynamicFilter of the other input by that row's value. A
 * nested loop would re-emit every joined row when the aggregate changes; the dynamic filter keeps
 * the rows ordered by the compared value and emits only those between the old and the new bound.
 *
 * The pattern is a projection (reading the other input only) over the filter over the join; the
 * filter's conjuncts that do not read the one-row input stay a filter above the dynamic filter.
 * The compared expressions are converted to the type they compare as; one that is not a plain
 * column is computed below (an extra input column, dropped by the projection above). A comparison
 * calling a non-deterministic function is left to the nested loop.
 */
import { sameType, withNullable, type SqlType } from '../../../common/sql-type.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { comparisonType } from '../../../expr/type-coercion.js';
import { LogicalDynamicFilter, LogicalFilter, LogicalProject, type DynamicFilterComparison, type LogicalJoin, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';
import { isDeterministic } from './push-filter-into-join.js';

const FLIPPED: Readonly<Record<DynamicFilterComparison, DynamicFilterComparison>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** The rule `join-to-dynamic-filter`. */
export const joinToDynamicFilter: RewriteRule = {
  name: 'join-to-dynamic-filter',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'project' || node.input.kind !== 'filter' || node.input.input.kind !== 'join') return node;
    const filter = node.input;
    const join: LogicalJoin = node.input.input;
    if (join.joinType !== 'INNER' || join.leftKeys.length > 0 || join.interval !== undefined) return node;
    const leftWidth = join.left.schema.length;
    // The one-row input is the bound; the other is filtered.
    const boundIsRight = atMostOneRow(join.right);
    if (!boundIsRight && !atMostOneRow(join.left)) return node;
    const [input, bound] = boundIsRight ? [join.left, join.right] : [join.right, join.left];
    const inputOffset = boundIsRight ? 0 : leftWidth;
    const boundOffset = boundIsRight ? leftWidth : 0;
    const readsInput = (e: ScalarExpr): boolean => inputRefsOf(e).every((r) => r >= inputOffset && r < inputOffset + input.schema.length);
    const readsBound = (e: ScalarExpr): boolean => inputRefsOf(e).some((r) => r >= boundOffset && r < boundOffset + bound.schema.length);
    if (!node.exprs.every(readsInput)) return node;

    const comparisons = conjunctsOf(filter.condition).filter(readsBound);
    if (comparisons.length !== 1) return node;
    const found = comparisonOf(comparisons[0]!, readsInput, (e) => inputRefsOf(e).length > 0 && inputRefsOf(e).every((r) => r >= boundOffset && r < boundOffset + bound.schema.length));
    if (found === undefined || !isDeterministic(comparisons[0]!, context.functions)) return node;
    const others = conjunctsOf(filter.condition).filter((c) => c !== comparisons[0]);

    const type = comparisonType(found.value.type, found.bound.type);
    if (type === undefined) return node;
    const toInput = (e: ScalarExpr): ScalarExpr => remapInputs(e, (r) => Exprs.inputRef(r.index - inputOffset, r.type));
    const value = castTo(toInput(found.value), type);
    const boundValue = castTo(
      remapInputs(found.bound, (r) => Exprs.inputRef(r.index - boundOffset, r.type)),
      type,
    );
    const filtered = value.kind === 'input-ref' ? input : withColumn(input, value);
    const inputIndex = value.kind === 'input-ref' ? value.index : input.schema.length;
    const boundName = found.bound.kind === 'input-ref' ? bound.schema[found.bound.index - boundOffset]!.name : '$bound';
    const boundPlan: LogicalNode = LogicalProject.create({ input: bound, exprs: [boundValue], names: [boundName] });
    let result: LogicalNode = LogicalDynamicFilter.create({ input: filtered, bound: boundPlan, inputIndex, comparison: found.comparison });
    if (others.length > 0) result = LogicalFilter.create({ input: result, condition: toInput(conjunction(others)) });
    return LogicalProject.create({ input: result, exprs: node.exprs.map(toInput), names: node.schema.map((f) => f.name) });
  },
};

/** `value <op> bound` read from a comparison conjunct, flipped when written the other way round. */
function comparisonOf(conjunct: ScalarExpr, isValue: (e: ScalarExpr) => boolean, isBound: (e: ScalarExpr) => boolean): { value: ScalarExpr; bound: ScalarExpr; comparison: DynamicFilterComparison } | undefined {
  if (conjunct.kind !== 'call' || conjunct.args.length !== 2 || !(conjunct.name in FLIPPED)) return undefined;
  const op = conjunct.name as DynamicFilterComparison;
  const [a, b] = conjunct.args as [ScalarExpr, ScalarExpr];
  if (isValue(a) && isBound(b)) return { value: a, bound: b, comparison: op };
  if (isBound(a) && isValue(b)) return { value: b, bound: a, comparison: FLIPPED[op] };
  return undefined;
}

/**
 * Whether `node` has at most one row whatever its input: a global aggregate (no GROUP BY keys), a
 * VALUES of at most one row, and filters and projections of those.
 */
export function atMostOneRow(node: LogicalNode): boolean {
  switch (node.kind) {
    case 'aggregate':
      return node.keys.length === 0;
    case 'values':
      return node.rows.length <= 1;
    case 'project':
    case 'filter':
    case 'watermark-assigner':
    case 'apply':
      return atMostOneRow(node.input);
    case 'semi-join':
      return atMostOneRow(node.left);
    case 'scan':
    case 'union':
    case 'window-tvf':
    case 'join':
    case 'rank':
    case 'over-aggregate':
    case 'over-window':
    case 'sink':
    case 'lookup-join':
    case 'temporal-join':
    case 'dynamic-filter':
    case 'set-operation':
    case 'expand':
    case 'correlate':
      return false;
    default: {
      const unknown: never = node;
      throw new Error(`unknown logical node ${JSON.stringify(unknown)}`);
    }
  }
}

/** `input` with `expr` appended as a column. */
function withColumn(input: LogicalNode, expr: ScalarExpr): LogicalNode {
  const exprs = [...input.schema.map((f, i) => Exprs.inputRef(i, f.type)), expr];
  return LogicalProject.create({ input, exprs, names: [...input.schema.map((f) => f.name), '$value'] });
}

/** `expr` converted to `type` (keeping its nullability); itself when it has that type already. */
function castTo(expr: ScalarExpr, type: SqlType): ScalarExpr {
  const target = withNullable(type, expr.type.nullable);
  return sameType(expr.type, target, { ignoreNullability: true }) ? expr : Exprs.cast(expr, target);
}
