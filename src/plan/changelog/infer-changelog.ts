/**
 * Changelog-mode inference over the physical plan, in Flink's two passes: bottom-up, which row
 * kinds each node produces; top-down from the sink, whether update-before rows are needed at all
 * (an upsert sink keyed by its primary key does not need them, so aggregations below it skip
 * -U). Plans a sink cannot consume are rejected with the plan printed.
 */
import { WeirError } from '../../common/errors.js';
import { overAggregateMode } from './over-aggregate-mode.js';
import type { PhysicalNode } from '../physical/physical-node.js';
import { ALL_KINDS, INSERT_ONLY, isUpdating, UPSERT, unionModes, type ChangelogMode } from './changelog-mode.js';

/** Renders a plan for an error message (injected to keep this module free of EXPLAIN formatting). */
export type PlanRenderer = (node: PhysicalNode) => string;

/** Returns the plan with every node's mode set, or throws a PLANNING_ERROR. */
export function inferChangelog(root: PhysicalNode, render: PlanRenderer): PhysicalNode {
  const requirementsApplied = requireUpdateBefore(root, true);
  const inferred = produce(requirementsApplied);
  checkSinks(inferred, render);
  return inferred;
}

/** Top-down: records on each aggregation whether its consumer needs -U rows. */
function requireUpdateBefore(node: PhysicalNode, required: boolean): PhysicalNode {
  switch (node.kind) {
    case 'source':
    case 'values':
      return node;
    case 'sink': {
      const upsert = node.target.accepts === 'upsert' && node.target.primaryKey.length > 0;
      return { ...node, input: requireUpdateBefore(node.input, !upsert) };
    }
    case 'calc':
      return { ...node, input: requireUpdateBefore(node.input, required || node.condition !== null) };
    case 'exchange':
    case 'watermark-assigner':
    case 'lookup-join':
      return { ...node, input: requireUpdateBefore(node.input, required) };
    case 'group-aggregate':
      return { ...node, emitUpdateBefore: required, input: requireUpdateBefore(node.input, true) };
    case 'window-aggregate':
    case 'window-table':
    case 'window-rank':
      return { ...node, input: requireUpdateBefore(node.input, true) };
    case 'window-join':
      return { ...node, left: requireUpdateBefore(node.left, true), right: requireUpdateBefore(node.right, true) };
    case 'join':
    case 'interval-join':
      return { ...node, left: requireUpdateBefore(node.left, true), right: requireUpdateBefore(node.right, true) };
    case 'temporal-join':
      return { ...node, left: requireUpdateBefore(node.left, true), right: requireUpdateBefore(node.right, false) };
    case 'dynamic-filter':
      return { ...node, input: requireUpdateBefore(node.input, true), bound: requireUpdateBefore(node.bound, false) };
    case 'rank':
    case 'over-aggregate':
      return { ...node, input: requireUpdateBefore(node.input, true) };
    case 'union':
      return { ...node, inputs: node.inputs.map((i) => requireUpdateBefore(i, required)) };
  }
}

/** Bottom-up: the kinds each node emits. */
function produce(node: PhysicalNode): PhysicalNode {
  switch (node.kind) {
    case 'source':
      return { ...node, mode: node.source.changelog === 'insert-only' ? INSERT_ONLY : node.source.changelog === 'upsert' ? UPSERT : ALL_KINDS };
    case 'values':
      return { ...node, mode: INSERT_ONLY };
    case 'calc':
    case 'exchange':
    case 'watermark-assigner':
    case 'lookup-join': {
      const input = produce(node.input);
      return { ...node, input, mode: input.mode } as PhysicalNode;
    }
    case 'group-aggregate': {
      const input = produce(node.input);
      // Without aggregate calls (DISTINCT) a group's row never changes: it only appears and disappears.
      const updates = node.calls.length > 0;
      const mode: ChangelogMode = { insert: true, updateBefore: updates && node.emitUpdateBefore, updateAfter: updates, delete: isUpdating(input.mode) };
      return { ...node, input, mode };
    }
    case 'window-aggregate': {
      const input = produce(node.input);
      if (isUpdating(input.mode)) {
        throw new WeirError('PLANNING_ERROR', `a ${node.window.kind} window aggregation needs an insert-only input, but its input produces updates`, {
          hint: 'window aggregations over updating inputs are not supported yet',
        });
      }
      return { ...node, input, mode: INSERT_ONLY };
    }
    case 'window-table':
    case 'window-rank': {
      const input = produce(node.input);
      requireInsertOnly(input, node.kind);
      return { ...node, input, mode: INSERT_ONLY } as PhysicalNode;
    }
    case 'window-join': {
      const left = produce(node.left);
      const right = produce(node.right);
      [left, right].forEach((input) => requireInsertOnly(input, node.kind));
      return { ...node, left, right, mode: INSERT_ONLY };
    }
    case 'rank': {
      const input = produce(node.input);
      return { ...node, input, mode: ALL_KINDS };
    }
    case 'over-aggregate': {
      const input = produce(node.input);
      return { ...node, input, mode: overAggregateMode(node, input.mode) };
    }
    case 'join': {
      const left = produce(node.left);
      const right = produce(node.right);
      const updating = isUpdating(left.mode) || isUpdating(right.mode) || node.joinType !== 'INNER';
      return { ...node, left, right, mode: { insert: true, updateBefore: false, updateAfter: false, delete: updating } };
    }
    case 'interval-join': {
      const left = produce(node.left);
      const right = produce(node.right);
      if (isUpdating(left.mode) || isUpdating(right.mode)) {
        throw new WeirError('PLANNING_ERROR', 'an interval join needs insert-only inputs, but an input produces updates', {
          hint: 'bound the join by rowtime attributes of append-only inputs, or drop the time bounds to run a regular join',
        });
      }
      return { ...node, left, right, mode: INSERT_ONLY };
    }
    case 'temporal-join': {
      const left = produce(node.left);
      if (isUpdating(left.mode)) {
        throw new WeirError('PLANNING_ERROR', 'the left side of an event-time temporal join must be insert-only, but it produces updates', { hint: 'join an append-only stream with the versioned table' });
      }
      return { ...node, left, right: produce(node.right), mode: INSERT_ONLY };
    }
    case 'dynamic-filter': {
      const input = produce(node.input);
      const bound = produce(node.bound);
      return { ...node, input, bound, mode: { insert: true, updateBefore: false, updateAfter: false, delete: isUpdating(input.mode) || isUpdating(bound.mode) } };
    }
    case 'union': {
      const inputs = node.inputs.map(produce);
      return { ...node, inputs, mode: inputs.map((i) => i.mode).reduce(unionModes) };
    }
    case 'sink': {
      const input = produce(node.input);
      return { ...node, input, mode: { insert: false, updateBefore: false, updateAfter: false, delete: false } };
    }
  }
}

/** Windowed operators other than the window aggregation take insert-only inputs only. */
function requireInsertOnly(input: PhysicalNode, kind: 'window-table' | 'window-rank' | 'window-join'): void {
  if (!isUpdating(input.mode)) return;
  const what = { 'window-table': 'a window table function', 'window-rank': 'a window Top-N', 'window-join': 'a window join' }[kind];
  throw new WeirError('PLANNING_ERROR', `${what} needs insert-only input, but its input produces updates`, { hint: 'windowed operators over updating inputs are not supported yet' });
}

function checkSinks(node: PhysicalNode, render: PlanRenderer): void {
  if (node.kind !== 'sink') return;
  const input = node.input;
  if (!isUpdating(input.mode)) return;
  const { target } = node;
  if (target.accepts === 'insert-only') {
    throw new WeirError('PLANNING_ERROR', `table sink '${target.qualifiedName}' doesn't support consuming update and delete changes, which the query produces:\n${render(node)}`, {
      hint: `the '${target.connector}' connector only accepts insert-only (append) queries`,
    });
  }
  if (target.accepts === 'upsert' && target.primaryKey.length === 0) {
    throw new WeirError('PLANNING_ERROR', `table sink '${target.qualifiedName}' needs a primary key to receive the updates the query produces:\n${render(node)}`, {
      hint: 'declare PRIMARY KEY (...) NOT ENFORCED on the sink table, or make the query insert-only',
    });
  }
}
