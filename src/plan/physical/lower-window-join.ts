/**
 * Plans Flink's WindowJoin: an inner equi-join of two inputs windowed by the same window (window
 * TVFs, window aggregations, ...; see window-properties) whose keys equate window_start with
 * window_start and window_end with window_end joins each window once, when it closes, instead of
 * keeping every row forever as a regular join does.
 */
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import type { LogicalJoin, LogicalNode } from '../logical/logical-node.js';
import { windowJoinOf } from '../logical/window-properties.js';
import type { PhysicalNode } from './physical-node.js';

/** The window join for `node`, or undefined when it is not one; `lower` lowers its inputs. */
export function lowerWindowJoin(node: LogicalJoin, lower: (node: LogicalNode) => PhysicalNode): PhysicalNode | undefined {
  if (node.joinType !== 'INNER' || node.condition !== null) return undefined;
  const windows = windowJoinOf(node);
  if (windows === undefined) return undefined;
  const exchange = (input: PhysicalNode, keys: readonly number[]): PhysicalNode => ({ kind: 'exchange', input, keys, schema: input.schema, mode: INSERT_ONLY });
  return {
    kind: 'window-join',
    left: exchange(lower(node.left), node.leftKeys),
    right: exchange(lower(node.right), node.rightKeys),
    window: windows.left.window,
    leftKeys: node.leftKeys,
    rightKeys: node.rightKeys,
    leftWindow: { start: windows.left.start, end: windows.left.end },
    rightWindow: { start: windows.right.start, end: windows.right.end },
    schema: node.schema,
    mode: INSERT_ONLY,
  };
}
