/**
 * Flink's Top-N pattern: a filter comparing the number of a rank (directly, or through the
 * projection of the query that computed it) with integer constants becomes the rank's range, as
 * Flink's `RankUtil.extractRankRange` does: `rn <= 3`, `rn < 4`, `rn = 3`, `rn > 1 AND rn <= 3`,
 * `rn BETWEEN 2 AND 5` (bound as `rn >= 2 AND rn <= 5`), either side of the comparison. The
 * comparisons become the range and leave the filter; the other conjuncts stay. Without an upper
 * bound nothing changes, and the rank, unbounded, is refused when it is planned. The constant
 * compared with may be an expression (`rn <= CAST(3 AS BIGINT)`), evaluated here. An analyzer
 * rule: a rank runs only as Top-N, so this rewrite cannot be switched off.
 */
import type { ScalarExpr } from '../../../expr/scalar-expr.js';
import { LogicalFilter, LogicalProject, LogicalRank, type LogicalNode, type RankRange } from '../../logical/logical-node.js';
import type { FunctionRegistry } from '../../../expr/function-registry.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';
import { reduce } from './reduce-constant-expressions.js';

/** The rule `push-limit-into-rank`. */
export const pushLimitIntoRank: RewriteRule = {
  name: 'push-limit-into-rank',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'filter') return node;
    const input = node.input;
    const rank = input.kind === 'rank' ? input : input.kind === 'project' && input.input.kind === 'rank' ? input.input : undefined;
    if (rank === undefined || !rank.outputNumber) return node;
    const rankColumn = rank.schema.length - 1;
    const filterColumn = input.kind === 'project' ? input.exprs.findIndex((e) => e.kind === 'input-ref' && e.index === rankColumn) : rankColumn;
    if (filterColumn < 0) return node;
    let start = rank.range?.start ?? 1;
    let end = rank.range?.end;
    const rest: ScalarExpr[] = [];
    for (const conjunct of conjunctsOf(node.condition)) {
      const bound = boundOf(conjunct, filterColumn, context.functions);
      if (bound === undefined) {
        rest.push(conjunct);
        continue;
      }
      if (bound.lower !== undefined) start = Math.max(start, bound.lower);
      if (bound.upper !== undefined) end = end === undefined ? bound.upper : Math.min(end, bound.upper);
    }
    if (end === undefined || rest.length === conjunctsOf(node.condition).length) return node;
    const range: RankRange = { start, end };
    const { kind: _kind, schema: _schema, ...rankFields } = rank;
    const ranged: LogicalRank = LogicalRank.create({ ...rankFields, range, numberName: rank.schema[rankColumn]!.name });
    const below: LogicalNode = input.kind === 'project' ? LogicalProject.create({ input: ranged, exprs: input.exprs, names: input.schema.map((f) => f.name) }) : ranged;
    if (rest.length === 0) return below;
    return LogicalFilter.create({ input: below, condition: conjunction(rest) });
  },
};

/** The bounds a comparison of column `column` (the number) with an integer constant puts on the number; undefined for any other expression. */
function boundOf(expr: ScalarExpr, column: number, functions: FunctionRegistry): { lower?: number; upper?: number } | undefined {
  if (expr.kind !== 'call' || expr.args.length !== 2) return undefined;
  const [left, right] = expr.args as [ScalarExpr, ScalarExpr];
  const flipped = right.kind === 'input-ref';
  const ref = flipped ? right : left;
  const n = integerOf(reduce(flipped ? left : right, functions));
  if (ref.kind !== 'input-ref' || ref.index !== column || n === undefined) return undefined;
  const op = flipped ? FLIPPED[expr.name] : expr.name;
  switch (op) {
    case '<=':
      return { upper: n };
    case '<':
      return { upper: n - 1 };
    case '=':
      return { lower: n, upper: n };
    case '>=':
      return { lower: n };
    case '>':
      return { lower: n + 1 };
    default:
      return undefined;
  }
}

/** The comparison with its operands swapped: `3 >= rn` is `rn <= 3`. */
const FLIPPED: Readonly<Record<string, string>> = { '<=': '>=', '<': '>', '=': '=', '>=': '<=', '>': '<' };

/** The value of an integer literal (a BIGINT may be a bigint), or undefined. */
function integerOf(expr: ScalarExpr): number | undefined {
  if (expr.kind !== 'literal') return undefined;
  const value = typeof expr.value === 'bigint' && expr.type.kind !== 'DECIMAL' ? Number(expr.value) : expr.value;
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}
