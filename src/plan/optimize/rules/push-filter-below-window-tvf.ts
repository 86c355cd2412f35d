/**
 * The conjuncts of a filter over a window TVF (TUMBLE, HOP, CUMULATE) that read only the TVF's
 * input columns move below it, as Flink does: the window columns then come straight from the TVF
 * again, so `... FROM TABLE(TUMBLE(...)) WHERE price > 10 GROUP BY window_start, window_end` stays a
 * window aggregation (and a window Top-N or join sees a windowed input), and fewer rows are
 * expanded. Conjuncts reading window_start, window_end or window_time, and non-deterministic ones
 * (evaluated per window copy above the TVF), stay above. SESSION windows are left alone: a
 * session's bounds depend on all the rows of its group, so filtering first would change them.
 */
import { LogicalFilter, LogicalWindowTvf, type LogicalNode } from '../../logical/logical-node.js';
import { inputRefsOf } from '../../../expr/scalar-expr.js';
import type { RewriteContext, RewriteRule } from '../optimizer.js';
import { conjunction, conjunctsOf } from './conjuncts.js';
import { isDeterministic } from './push-filter-into-join.js';

/** The rule `push-filter-below-window-tvf`. */
export const pushFilterBelowWindowTvf: RewriteRule = {
  name: 'push-filter-below-window-tvf',
  rewrite(node: LogicalNode, context: RewriteContext): LogicalNode {
    if (node.kind !== 'filter' || node.input.kind !== 'window-tvf' || node.input.window.kind === 'SESSION') return node;
    const tvf = node.input;
    const width = tvf.input.schema.length;
    const below = [];
    const above = [];
    for (const conjunct of conjunctsOf(node.condition)) {
      if (inputRefsOf(conjunct).every((c) => c < width) && isDeterministic(conjunct, context.functions)) below.push(conjunct);
      else above.push(conjunct);
    }
    if (below.length === 0) return node;
    const input: LogicalNode = LogicalFilter.create({ input: tvf.input, condition: conjunction(below) });
    const pushed: LogicalNode = LogicalWindowTvf.create({ ...tvf, input });
    return above.length === 0 ? pushed : LogicalFilter.create({ input: pushed, condition: conjunction(above) });
  },
};
