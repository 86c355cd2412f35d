/**
 * Plans Flink's WindowRank: a Top-N (`ROW_NUMBER() ... <= N`) whose partition keys include
 * window_start and window_end of a windowed input (see window-properties) runs per window and
 * emits each window's final top rows once, when the window closes, instead of an updating Top-N.
 */
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import type { LogicalNode, LogicalRank } from '../logical/logical-node.js';
import { windowRankOf } from '../logical/window-properties.js';
import type { PhysicalNode } from './physical-node.js';

/** The window rank for `node`, or undefined when it is not a windowed Top-N; `lower` lowers its input. */
export function lowerWindowRank(node: LogicalRank, lower: (node: LogicalNode) => PhysicalNode): PhysicalNode | undefined {
  const columns = windowRankOf(node);
  if (columns === undefined || node.limit === undefined) return undefined;
  const input = lower(node.input);
  const { partitionKeys, orderKeys, limit, schema } = node;
  return {
    kind: 'window-rank',
    input: { kind: 'exchange', input, keys: partitionKeys, schema: input.schema, mode: INSERT_ONLY },
    window: columns.window,
    windowStart: columns.start,
    windowEnd: columns.end,
    partitionKeys,
    orderKeys,
    limit,
    schema,
    mode: INSERT_ONLY,
  };
}
