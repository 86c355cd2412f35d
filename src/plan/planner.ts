/**
 * The planner facade: logical plan → optimized logical plan → physical plan with changelog modes
 * → job graph. EXPLAIN prints the physical plan this produces.
 */
import type { JobGraph } from '../dataflow/job-graph.js';
import type { FunctionRegistry } from '../expr/function-registry.js';
import { inferChangelog } from './changelog/infer-changelog.js';
import { upsertKeys } from './changelog/upsert-keys.js';
import { uniqueKey } from './logical/unique-key.js';
import type { ViewKeying } from '../sql/bind/bind-materialized-view.js';
import type { LogicalNode } from './logical/logical-node.js';
import { WeirError } from '../common/errors.js';
import { optimizePlan } from './optimize/optimizer.js';
import { explainPlan } from './physical/explain.js';
import { lowerToPhysical } from './physical/lower-to-physical.js';
import type { PhysicalNode } from './physical/physical-node.js';
import { reuseMarks } from './physical/explain-reuse.js';
import { lowerToJobGraph, toJobGraph, type JobGraphOptions } from './physical/to-job-graph.js';

/** Settings that change planning. */
export interface PlannerOptions {
  readonly parallelism: number;
  readonly functions: FunctionRegistry;
  /** Optimizer rules switched off by name. */
  readonly disabledRules?: ReadonlySet<string>;
  /** `table.optimizer.max-passes`: passes of the optimizer rules at most (default 16). */
  readonly maxPasses?: number;
  /** Fail (INTERNAL_ERROR) when the rules do not reach a fixpoint within `maxPasses`, instead of using the last plan: set in tests. */
  readonly requireFixpoint?: boolean;
  /** `table.exec.state.ttl` in milliseconds (0: state is kept forever). */
  readonly stateTtlMillis?: number;
  /** `table.exec.source.idle-timeout` in milliseconds (0: sources never go idle). */
  readonly sourceIdleTimeoutMillis?: number;
  /** `table.optimizer.reuse-source-enabled`: scans of one table with the same options share one source (default true). */
  readonly reuseSources?: boolean;
  /** `table.optimizer.reuse-sub-plan-enabled`: equal deterministic sub-plans are computed once (default true). */
  readonly reuseSubplans?: boolean;
  /** `table.exec.sink.require-on-conflict`: an updating query into a primary key that is no key of it needs ON CONFLICT (default true). */
  readonly requireOnConflict?: boolean;
  /** The resolved `table.local-time-zone`: constants fold in it and the job graph records it (absent or UTC: UTC). */
  readonly timeZone?: string;
}

/** A planned statement: its physical plans (one per sink, or one query). */
export interface PlannedQuery {
  readonly physical: readonly PhysicalNode[];
}

/** The logical plan after the analyzer and the enabled optimizer rules. */
export function optimizeLogical(plan: LogicalNode, options: PlannerOptions): LogicalNode {
  const result = optimizePlan(plan, { functions: options.functions, ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }) }, { ...(options.disabledRules === undefined ? {} : { disabled: options.disabledRules }), ...(options.maxPasses === undefined ? {} : { maxPasses: options.maxPasses }) });
  if (!result.converged && options.requireFixpoint === true) {
    throw new WeirError('INTERNAL_ERROR', `the optimizer did not reach a fixpoint in ${result.passes} passes; rules still changing the plan: ${result.changedInLastPass.join(', ')}`);
  }
  return result.plan;
}

/** Plans logical roots (sinks, or one query) into physical plans with changelog modes. */
export function planPhysical(roots: readonly LogicalNode[], options: PlannerOptions): PlannedQuery {
  const changelog = { requireOnConflict: options.requireOnConflict ?? true };
  return { physical: roots.map((root) => inferChangelog(lowerToPhysical(optimizeLogical(root, options)), (node) => explainPlan(node), changelog)) };
}

/**
 * How a materialized view of `query` is keyed: by its upsert key when it has one (the sink then
 * upserts by it and its aggregations skip update-before rows), preferring keys with fewer columns
 * that may be NULL, then fewer columns; else by a unique key of the logical plan whose changes may
 * travel different paths (the sink materializes them per key, so that their order does not matter);
 * else as a multiset. A key without columns (a global aggregate's single row) makes a multiset too.
 */
export function materializedViewKeying(query: LogicalNode, options: PlannerOptions): ViewKeying {
  const optimized = optimizeLogical(query, options);
  const physical = lowerToPhysical(optimized);
  const nullable = (key: readonly number[]): number => key.filter((i) => physical.schema[i]!.type.nullable).length;
  const keys = upsertKeys(physical)
    .filter((key) => key.length > 0)
    .sort((a, b) => nullable(a) - nullable(b) || a.length - b.length);
  if (keys.length > 0) return { kind: 'key', columns: keys[0]!, materialize: false };
  const unique = uniqueKey(optimized);
  if (unique !== undefined && unique.length > 0) return { kind: 'key', columns: unique, materialize: true };
  return { kind: 'multiset' };
}

/** EXPLAIN's text of planned sinks, marking what their job will share (only EXPLAIN needs it: lowering for the marks is not free). */
export function explainPlanned(planned: PlannedQuery, options: PlannerOptions): string {
  const marks = reuseMarks(planned.physical, lowerToJobGraph(planned.physical, jobGraphOptions('explain', options)).nodeIds);
  return `== Optimized Physical Plan ==\n${planned.physical.map((root) => explainPlan(root, marks)).join('\n\n')}\n`;
}

/** The job graph for planned sinks. */
export function buildJobGraph(planned: PlannedQuery, name: string, options: PlannerOptions): JobGraph {
  return toJobGraph(planned.physical, jobGraphOptions(name, options));
}

function jobGraphOptions(name: string, options: PlannerOptions): JobGraphOptions {
  const { stateTtlMillis, sourceIdleTimeoutMillis, reuseSources, reuseSubplans, functions, timeZone } = options;
  return {
    name,
    parallelism: options.parallelism,
    isDeterministicFunction: (fn) => {
      const definition = functions.lookup(fn);
      return definition?.kind !== 'scalar' || definition.deterministic;
    },
    ...(reuseSources === undefined ? {} : { reuseSources }),
    ...(reuseSubplans === undefined ? {} : { reuseSubplans }),
    ...(stateTtlMillis === undefined ? {} : { stateTtlMillis }),
    ...(sourceIdleTimeoutMillis === undefined ? {} : { sourceIdleTimeoutMillis }),
    ...(timeZone === undefined ? {} : { timeZone }),
  };
}
