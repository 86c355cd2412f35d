/**
 * Plans Flink's WindowJoin: an equi-join (inner or outer) of two inputs windowed by the same window (window
 * TVFs, window aggregations, ...; see window-properties) whose keys equate window_start with
 * window_start and window_end with window_end joins each window once, when it closes, instead of
 * keeping every row forever as a regular join does. As in Flink, the inputs are partitioned by the
 * other equated columns only (a key's windows are one entry of keyed state), or sent to one
 * subtask when the windows are all the join equates.
 */
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import type { LogicalJoin, LogicalNode } from '../logical/logical-node.js';
import { windowJoinOf } from '../logical/window-properties.js';
import type { PhysicalNode } from './physical-node.js';

/** The window join for `node`, or undefined when it is not one; `lower` lowers its inputs. */
export function lowerWindowJoin(node: LogicalJoin, lower: (node: LogicalNode) => PhysicalNode): PhysicalNode | undefined {
  if (node.condition !== null || node.nullSafe !== undefined) return undefined;
  const windows = windowJoinOf(node);
  if (windows === undefined) return undefined;
  const isWindowPair = (l: number, r: number): boolean => (l === windows.left.start && r === windows.right.start) || (l === windows.left.end && r === windows.right.end);
  const pairs = node.leftKeys.map((l, i) => [l, node.rightKeys[i]!] as const).filter(([l, r]) => !isWindowPair(l, r));
  const leftKeys = pairs.map(([l]) => l);
  const rightKeys = pairs.map(([, r]) => r);
  const exchange = (input: PhysicalNode, keys: readonly number[]): PhysicalNode => ({ kind: 'exchange', input, keys: keys.length === 0 ? null : keys, schema: input.schema, mode: INSERT_ONLY });
  return {
    kind: 'window-join',
    joinType: node.joinType,
    left: exchange(lower(node.left), leftKeys),
    right: exchange(lower(node.right), rightKeys),
    window: windows.left.window,
    ...(windows.left.zoned === true || windows.right.zoned === true ? { zoned: true as const } : {}),
    leftKeys,
    rightKeys,
    leftWindow: { start: windows.left.start, end: windows.left.end },
    rightWindow: { start: windows.right.start, end: windows.right.end },
    schema: node.schema,
    mode: INSERT_ONLY,
  };
}
