/**
 * Window properties of a logical plan's output: whether a column is the `window_end` of a window
 * aggregation (a GROUP BY over a window TVF), passed on unchanged by projections and filters. Such
 * a column's rows are emitted once, when the watermark passes the window's end, so a join that
 * equates two of them can drop a window's rows once the watermark passes it (a window join). A
 * window over a plain TIMESTAMP column (no time attribute) is no such window: its aggregation updates.
 */
import { timeAttributeOf } from '../../common/sql-type.js';
import type { LogicalNode } from './logical-node.js';

/** True when output column `column` of `node` is the window_end of a window aggregation. */
export function isWindowEnd(node: LogicalNode, column: number): boolean {
  switch (node.kind) {
    case 'project': {
      const expr = node.exprs[column];
      return expr?.kind === 'input-ref' && isWindowEnd(node.input, expr.index);
    }
    case 'filter':
      return isWindowEnd(node.input, column);
    case 'aggregate': {
      const key = node.keys[column];
      if (key === undefined || column >= node.keys.length) return false;
      const project = node.input.kind === 'project' ? node.input : undefined;
      const tvf = project?.input ?? node.input;
      // Over a plain TIMESTAMP (no time attribute) the aggregation is an ordinary updating one, whose rows no watermark closes.
      if (tvf.kind !== 'window-tvf' || timeAttributeOf(tvf.input.schema[tvf.timeIndex]!.type) === undefined) return false;
      const expr = project === undefined ? undefined : project.exprs[key];
      const index = project === undefined ? key : expr?.kind === 'input-ref' ? expr.index : -1;
      return index === tvf.input.schema.length + 1;
    }
    default:
      return false;
  }
}
