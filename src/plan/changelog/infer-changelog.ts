/**
 * Changelog-mode inference over the physical plan, in Flink's two passes: bottom-up, which row
 * kinds each node produces; top-down from the sink, whether update-before rows are needed at all.
 * An upsert sink drops them only when its primary key is exactly an upsert key of its input (see
 * upsert-keys.ts): every change of a key's row then replaces that row. Any other sink keeps them:
 * when its primary key contains an upsert key, a -U deletes the old row's key and a +U writes the
 * new one; when it contains none, two rows of the query may share a primary key, and the sink
 * materializes its input per primary key (Flink's SinkUpsertMaterializer) under the statement's
 * `ON CONFLICT` strategy — required for an updating query unless
 * `table.exec.sink.require-on-conflict` is false (then DEDUPLICATE), as in Flink 2.3. Plans a
 * sink cannot consume are rejected with the plan printed.
 */
import { timeAttributeOf } from '../../common/sql-type.js';
import type { ConflictStrategy } from '../../common/conflict-strategy.js';
import { WeirError } from '../../common/errors.js';
import { overAggregateMode, overWindowOf } from './over-aggregate-mode.js';
import type { PhysicalNode } from '../physical/physical-node.js';
import { ALL_KINDS, INSERT_ONLY, isUpdating, UPSERT, unionModes, type ChangelogMode } from './changelog-mode.js';
import { hasKeyEqualTo, keysWithin, upsertKeys, type UpsertKey } from './upsert-keys.js';

/** Renders a plan for an error message (injected to keep this module free of EXPLAIN formatting). */
export type PlanRenderer = (node: PhysicalNode) => string;

/** Settings that change inference. */
export interface ChangelogOptions {
  /**
   * `table.exec.sink.require-on-conflict` (Flink 2.3, default true): an updating query whose upsert
   * keys do not lie within its sink's primary key needs an `ON CONFLICT` clause; when false, such a
   * sink deduplicates (the last row of a key wins).
   */
  readonly requireOnConflict: boolean;
}

const DEFAULT_OPTIONS: ChangelogOptions = { requireOnConflict: true };

/** Returns the plan with every node's mode set, or throws a PLANNING_ERROR. */
export function inferChangelog(root: PhysicalNode, render: PlanRenderer, options: ChangelogOptions = DEFAULT_OPTIONS): PhysicalNode {
  const requirementsApplied = requireUpdateBefore(root, true);
  const inferred = materializeSink(produce(requirementsApplied), render, options);
  checkSinks(inferred, render);
  return inferred;
}

/** The positions of a sink's primary key columns in its input. */
function primaryKeyIndexes(sink: Extract<PhysicalNode, { kind: 'sink' }>): number[] {
  return sink.target.primaryKey.map((name) => sink.schema.findIndex((f) => f.name === name));
}

/** Whether a sink needs update-before rows: all do but an upsert sink whose primary key is exactly an upsert key of its input. */
function sinkNeedsUpdateBefore(sink: Extract<PhysicalNode, { kind: 'sink' }>): boolean {
  const { target } = sink;
  if (target.multiset === true || target.accepts !== 'upsert' || target.primaryKey.length === 0) return true;
  return !hasKeyEqualTo(upsertKeys(sink.input), primaryKeyIndexes(sink));
}

/**
 * Decides whether a sink with a primary key materializes its input (see the module comment), and
 * refuses an updating query into a primary key that is no key of it, unless `ON CONFLICT` says
 * how to resolve its rows.
 */
function materializeSink(node: PhysicalNode, render: PlanRenderer, options: ChangelogOptions): PhysicalNode {
  if (node.kind !== 'sink' || node.target.primaryKey.length === 0 || node.target.multiset === true) return node;
  const keys = upsertKeys(node.input);
  if (keysWithin(keys, primaryKeyIndexes(node)).length > 0) return node;
  const strategy = node.target.conflictStrategy;
  let materialize: ConflictStrategy | undefined;
  if (!isUpdating(node.input.mode)) {
    // An append-only query upserts: its last row of a key wins unless the statement asks otherwise.
    materialize = strategy === 'NOTHING' || strategy === 'ERROR' ? strategy : undefined;
  } else if (strategy !== undefined) {
    materialize = strategy;
  } else if (!options.requireOnConflict) {
    materialize = 'DEDUPLICATE';
  } else {
    throw new WeirError(
      'PLANNING_ERROR',
      `the query's upsert key differs from the primary key of the sink table '${node.target.qualifiedName}': primary key ${formatColumns(node.target.primaryKey)}, upsert key ${formatKeys(keys, node.input.schema.map((f) => f.name))}; rows with different upsert keys can share one primary key, so the table's content would depend on the order of changes:\n${render(node)}`,
      {
        hint: "add ON CONFLICT DO DEDUPLICATE (keep the latest row of a key; keeps every row of the query in state), DO NOTHING (keep the first) or DO ERROR (fail when a key has two rows) to the INSERT, or SET 'table.exec.sink.require-on-conflict' = 'false' to deduplicate",
      },
    );
  }
  return materialize === undefined ? node : { ...node, materialize, mode: node.mode };
}

function formatColumns(names: readonly string[]): string {
  return `[${names.join(', ')}]`;
}

function formatKeys(keys: readonly UpsertKey[], names: readonly string[]): string {
  if (keys.length === 0) return 'none';
  return keys.map((key) => formatColumns(key.map((i) => names[i]!))).join(' or ');
}

/** Top-down: records on each aggregation whether its consumer needs -U rows. */
function requireUpdateBefore(node: PhysicalNode, required: boolean): PhysicalNode {
  switch (node.kind) {
    case 'source':
    case 'values':
      return node;
    case 'sink':
      return { ...node, input: requireUpdateBefore(node.input, sinkNeedsUpdateBefore(node)) };
    case 'calc':
      return { ...node, input: requireUpdateBefore(node.input, required || node.condition !== null) };
    case 'exchange':
    case 'watermark-assigner':
    case 'lookup-join':
    case 'expand':
      return { ...node, input: requireUpdateBefore(node.input, required) };
    case 'group-aggregate':
      return { ...node, emitUpdateBefore: required, input: requireUpdateBefore(node.input, true) };
    case 'changelog-normalize':
      return { ...node, emitUpdateBefore: required, input: requireUpdateBefore(node.input, false) };
    case 'window-aggregate':
    case 'window-table':
    case 'window-rank':
      return { ...node, input: requireUpdateBefore(node.input, true) };
    case 'window-join':
      return { ...node, left: requireUpdateBefore(node.left, true), right: requireUpdateBefore(node.right, true) };
    case 'join':
    case 'semi-join':
    case 'interval-join':
    case 'set-operation':
      return { ...node, left: requireUpdateBefore(node.left, true), right: requireUpdateBefore(node.right, true) };
    case 'temporal-join':
      return { ...node, left: requireUpdateBefore(node.left, true), right: requireUpdateBefore(node.right, false) };
    case 'dynamic-filter':
      return { ...node, input: requireUpdateBefore(node.input, true), bound: requireUpdateBefore(node.bound, false) };
    case 'rank':
    case 'over-aggregate':
    case 'over-window':
    // Each input row gives several rows: an update must retract every row of its old version.
    case 'correlate':
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
    case 'lookup-join':
    case 'expand':
    case 'correlate': {
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
    case 'changelog-normalize': {
      const input = produce(node.input);
      return { ...node, input, mode: { insert: true, updateBefore: node.emitUpdateBefore, updateAfter: true, delete: true } };
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
    case 'window-table': {
      const input = produce(node.input);
      // Over a plain timestamp the windows are a function of each row: any changelog expands kind by kind.
      if (timeAttributeOf(input.schema[node.timeIndex]!.type) === undefined) return { ...node, input, mode: input.mode };
      requireInsertOnly(input, node.kind);
      return { ...node, input, mode: INSERT_ONLY };
    }
    case 'window-rank': {
      const input = produce(node.input);
      requireInsertOnly(input, node.kind);
      return { ...node, input, mode: INSERT_ONLY };
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
      const general = overWindowOf(node, input.mode);
      if (general !== undefined) return { ...general, input, mode: ALL_KINDS };
      return { ...node, input, mode: overAggregateMode(node, input.mode) };
    }
    case 'over-window': {
      const input = produce(node.input);
      return { ...node, input, mode: ALL_KINDS };
    }
    case 'join': {
      const left = produce(node.left);
      const right = produce(node.right);
      const updating = isUpdating(left.mode) || isUpdating(right.mode) || node.joinType !== 'INNER';
      return { ...node, left, right, mode: { insert: true, updateBefore: false, updateAfter: false, delete: updating } };
    }
    case 'semi-join': {
      // Left rows come and go as their matches do: a semi join deletes when the right side (or the
      // left) retracts, an anti join whenever a right row arrives. Updates come out as -D/+I.
      const left = produce(node.left);
      const right = produce(node.right);
      const deletes = node.anti || isUpdating(left.mode) || isUpdating(right.mode);
      return { ...node, left, right, mode: { insert: true, updateBefore: false, updateAfter: false, delete: deletes } };
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
    case 'set-operation': {
      // A row's identity is all its columns, so it is only ever inserted or deleted. Over
      // insert-only inputs INTERSECT [ALL] only grows; EXCEPT [ALL] shrinks as the right side grows.
      const left = produce(node.left);
      const right = produce(node.right);
      const deletes = node.op === 'EXCEPT' || isUpdating(left.mode) || isUpdating(right.mode);
      return { ...node, left, right, mode: { insert: true, updateBefore: false, updateAfter: false, delete: deletes } };
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
  if (target.accepts === 'upsert' && target.primaryKey.length === 0 && target.multiset !== true) {
    throw new WeirError('PLANNING_ERROR', `table sink '${target.qualifiedName}' needs a primary key to receive the updates the query produces:\n${render(node)}`, {
      hint: 'declare PRIMARY KEY (...) NOT ENFORCED on the sink table, or make the query insert-only',
    });
  }
}
