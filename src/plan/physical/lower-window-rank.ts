/**
 * Plans Flink's WindowRank: a Top-N (`ROW_NUMBER() ... <= N`, or a range of numbers) whose
 * partition keys include window_start and window_end of a windowed input (see window-properties)
 * runs per window and emits each window's final top rows once, when the window closes, instead
 * of an updating Top-N.
 */
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import type { LogicalNode, LogicalRank, RankRange } from '../logical/logical-node.js';
import { windowRankOf } from '../logical/window-properties.js';
import type { PhysicalNode } from './physical-node.js';

/** The window rank for `node` (its rank range `range`), or undefined when it is not a windowed Top-N; `lower` lowers its input. */
export function lowerWindowRank(node: LogicalRank, range: RankRange, lower: (node: LogicalNode) => PhysicalNode): PhysicalNode | undefined {
  const columns = windowRankOf(node);
  if (columns === undefined) return undefined;
  const input = lower(node.input);
  const { partitionKeys, orderKeys, outputNumber, schema } = node;
  return {
    kind: 'window-rank',
    input: { kind: 'exchange', input, keys: partitionKeys, schema: input.schema, mode: INSERT_ONLY },
    window: columns.window,
    ...(columns.zoned === true ? { zoned: true as const } : {}),
    windowStart: columns.start,
    windowEnd: columns.end,
    partitionKeys,
    orderKeys,
    range,
    outputNumber,
    schema,
    mode: INSERT_ONLY,
  };
}
