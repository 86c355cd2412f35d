/**
 * Flink's Top-N pattern: a filter `rn <= N` (or `rn < N`, `rn = 1`) on the row number of a
 * ROW_NUMBER() rank (directly, or through the projection of the query that computed it) becomes
 * the rank's limit, so that only the first N rows of each partition are kept.
 */
import type { ScalarExpr } from '../../../expr/scalar-expr.js';
import type { LogicalNode, LogicalRank } from '../../logical/logical-node.js';
import type { RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';

/** The rule `push-limit-into-rank`. */
export const pushLimitIntoRank: RewriteRule = {
  name: 'push-limit-into-rank',
  rewrite(node: LogicalNode): LogicalNode {
    if (node.kind !== 'filter') return node;
    const input = node.input;
    const rank = input.kind === 'rank' ? input : input.kind === 'project' && input.input.kind === 'rank' ? input.input : undefined;
    if (rank === undefined || rank.limit !== undefined) return node;
    const rankColumn = rank.schema.length - 1;
    const filterColumn = input.kind === 'project' ? input.exprs.findIndex((e) => e.kind === 'input-ref' && e.index === rankColumn) : rankColumn;
    if (filterColumn < 0) return node;
    const conjuncts = conjunctsOf(node.condition);
    for (let i = 0; i < conjuncts.length; i++) {
      const bound = limitOf(conjuncts[i]!, filterColumn);
      if (bound === undefined) continue;
      const rest = bound.keep ? conjuncts : conjuncts.filter((_, j) => j !== i);
      const limited: LogicalRank = { ...rank, limit: bound.limit };
      const below: LogicalNode = input.kind === 'project' ? { ...input, input: limited } : limited;
      if (rest.length === 0) return below;
      return { ...node, input: below, condition: conjunction(rest) };
    }
    return node;
  },
};

/** The limit a comparison of the row number with a constant implies, and whether the comparison must stay. */
function limitOf(expr: ScalarExpr, column: number): { limit: number; keep: boolean } | undefined {
  if (expr.kind !== 'call' || expr.args.length !== 2) return undefined;
  const [ref, value] = expr.args as [ScalarExpr, ScalarExpr];
  if (ref.kind !== 'input-ref' || ref.index !== column || value.kind !== 'literal' || typeof value.value !== 'number' || !Number.isInteger(value.value)) return undefined;
  const n = value.value;
  switch (expr.name) {
    case '<=':
      return n >= 1 ? { limit: n, keep: false } : undefined;
    case '<':
      return n >= 2 ? { limit: n - 1, keep: false } : undefined;
    case '=':
      return n >= 1 ? { limit: n, keep: n !== 1 } : undefined;
    default:
      return undefined;
  }
}
