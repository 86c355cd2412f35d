/**
 * Lowers a logical join: both inputs hash-exchanged by their join keys into a regular join, or
 * into an interval join when the binder found time bounds between two rowtime attributes. A join
 * without keys (a nested loop, or an interval join on the bounds alone) sends both inputs to one
 * subtask, as Flink's `Exchange(distribution=[single])`.
 */
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import type { LogicalJoin, LogicalSemiJoin } from '../logical/logical-node.js';
import type { PhysicalNode } from './physical-node.js';

/** The physical join of `node` over its already lowered inputs. */
export function lowerJoin(node: LogicalJoin, left: PhysicalNode, right: PhysicalNode): PhysicalNode {
  const mode = INSERT_ONLY;
  const inputs = {
    left: { kind: 'exchange', input: left, keys: node.leftKeys.length === 0 ? null : node.leftKeys, schema: left.schema, mode },
    right: { kind: 'exchange', input: right, keys: node.rightKeys.length === 0 ? null : node.rightKeys, schema: right.schema, mode },
  } as const;
  const common = { joinType: node.joinType, ...inputs, leftKeys: node.leftKeys, rightKeys: node.rightKeys, condition: node.condition, schema: node.schema, mode };
  if (node.interval !== undefined) return { kind: 'interval-join', ...common, bounds: node.interval };
  return { kind: 'join', ...common, ...(node.nullSafe === undefined ? {} : { nullSafe: node.nullSafe }) };
}

/** The physical semi or anti join of `node`: both inputs hash-exchanged by their keys (one subtask without keys). */
export function lowerSemiJoin(node: LogicalSemiJoin, left: PhysicalNode, right: PhysicalNode): PhysicalNode {
  const mode = INSERT_ONLY;
  const exchange = (input: PhysicalNode, keys: readonly number[]): PhysicalNode => ({ kind: 'exchange', input, keys: keys.length === 0 ? null : keys, schema: input.schema, mode });
  const { anti, leftKeys, rightKeys, condition, schema } = node;
  return { kind: 'semi-join', anti, left: exchange(left, leftKeys), right: exchange(right, rightKeys), leftKeys, rightKeys, ...(node.nullSafe === undefined ? {} : { nullSafe: node.nullSafe }), condition, ...(node.nullAwareKey === undefined ? {} : { nullAwareKey: node.nullAwareKey }), schema, mode };
}
