/**
 * A Top-N whose number nothing reads does not output it (Flink's `outputRankNumber = false`):
 * `SELECT a, b FROM (SELECT a, b, ROW_NUMBER() OVER (...) AS rn FROM t) WHERE rn <= 3` keeps the
 * three rows, and a row that moves within them changes nothing downstream, where with the number
 * every row after a newcomer would be retracted and emitted again with its new number.
 *
 * The rule starts at a projection and follows the projections and filters below it down to a
 * ranged rank (one that runs as Top-N); when no expression on that path reads the number, the
 * rank drops it, and the projections on the path drop the columns nothing above reads. The
 * projection it starts at keeps its schema.
 */
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../../expr/scalar-expr.js';
import { LogicalFilter, LogicalProject, LogicalRank, type LogicalNode } from '../../logical/logical-node.js';
import type { RewriteRule } from '../optimizer.js';

/** A projection or filter between the projection the rule starts at and the rank. */
type PathNode = Extract<LogicalNode, { kind: 'project' | 'filter' }>;

/** The rule `drop-unused-rank-number`. */
export const dropUnusedRankNumber: RewriteRule = {
  name: 'drop-unused-rank-number',
  rewrite(node: LogicalNode): LogicalNode {
    if (node.kind !== 'project') return node;
    const path: PathNode[] = [];
    let below = node.input;
    while (below.kind === 'project' || below.kind === 'filter') {
      path.push(below);
      below = below.input;
    }
    const rank = below;
    if (rank.kind !== 'rank' || rank.range === undefined || !rank.outputNumber) return node;
    // What each node on the path must still output, top-down: what the node above reads.
    const needs: Set<number>[] = [];
    let need = new Set(node.exprs.flatMap((e) => inputRefsOf(e)));
    for (const step of path) {
      needs.push(need);
      need = step.kind === 'filter' ? new Set([...need, ...inputRefsOf(step.condition)]) : new Set([...need].flatMap((i) => inputRefsOf(step.exprs[i]!)));
    }
    if (need.has(rank.schema.length - 1)) return node;
    // Rebuild bottom-up; `position` maps a column of the node below to its new index.
    const { kind: _kind, schema: _schema, ...rankFields } = rank;
    let rebuilt: LogicalNode = LogicalRank.create({ ...rankFields, outputNumber: false });
    let position: (column: number) => number = (column) => column;
    const remap = (expr: ScalarExpr, at: (column: number) => number): ScalarExpr => remapInputs(expr, (ref) => Exprs.inputRef(at(ref.index), ref.type));
    for (let i = path.length - 1; i >= 0; i--) {
      const step = path[i]!;
      const at = position;
      if (step.kind === 'filter') {
        rebuilt = LogicalFilter.create({ input: rebuilt, condition: remap(step.condition, at) });
        continue;
      }
      const kept = step.exprs.map((_, column) => column).filter((column) => needs[i]!.has(column));
      const newIndex = new Map(kept.map((column, index) => [column, index]));
      rebuilt = LogicalProject.create({ input: rebuilt, exprs: kept.map((column) => remap(step.exprs[column]!, at)), names: kept.map((column) => step.schema[column]!.name) });
      position = (column) => newIndex.get(column)!;
    }
    const at = position;
    return LogicalProject.create({ input: rebuilt, exprs: node.exprs.map((e) => remap(e, at)), names: node.schema.map((f) => f.name) });
  },
};
