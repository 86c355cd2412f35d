/**
 * Lowers a physical plan to the job graph the runtime executes: one job node per physical node,
 * except exchanges, which become the partitioning of the edge into their consumer, and the Calcs
 * around a watermark assigner, which are fused into it (a computed rowtime column below it, the
 * filter and projection of a view or query above it), when nothing else reads them (an assigner
 * several views share computes only the watermark, see fuseAroundAssigner). Equal
 * sub-plans become one job node read by every consumer: scans of one table with the same options
 * (a self-join, or a statement set reading a table twice, reads its input once), and equal
 * operators over equal inputs (computed once).
 */
import { WeirError } from '../../common/errors.js';
import type { Schema } from '../../common/schema.js';
import { isNanoTimestamp } from '../../common/epoch-nanos.js';
import { timeAttributeOf, type SqlType } from '../../common/sql-type.js';
import { JOB_GRAPH_VERSION, type AggregateCallSpec, type JobEdge, type JobGraph, type JobNode, type LookupJoinSpec, type OperatorSpec, type OverLagSpec, type WatermarkAssignerSpec } from '../../dataflow/job-graph.js';
import type { ChangelogMode } from '../changelog/changelog-mode.js';
import type { AggregateCall, OverCall, WindowCall } from '../logical/logical-node.js';
import type { WindowFunction } from '../../common/window-function.js';
import { isUtcZone } from '../../common/time-zone.js';
import { remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { physicalInputs, type PhysicalNode } from './physical-node.js';

/** How the job graph is laid out. */
export interface JobGraphOptions {
  readonly name: string;
  readonly parallelism: number;
  /** Idle state retention of unbounded-state operators in milliseconds; 0 or absent keeps state forever. */
  readonly stateTtlMillis?: number;
  /** How long a source reads nothing before it is idle, in milliseconds; 0 or absent never. */
  readonly sourceIdleTimeoutMillis?: number;
  /** Whether equal scans share one source node (`table.optimizer.reuse-source-enabled`); absent: they do. */
  readonly reuseSources?: boolean;
  /** Whether equal operators over the same inputs run once (`table.optimizer.reuse-sub-plan-enabled`); absent: they do. */
  readonly reuseSubplans?: boolean;
  /** Whether a function gives the same result for the same arguments; absent: every function does. Operators calling one that does not are never shared. */
  readonly isDeterministicFunction?: (name: string) => boolean;
  /** The resolved session zone the job computes TIMESTAMP_LTZ in; recorded in the graph unless UTC. */
  readonly timeZone?: string;
}

/** Operators whose keyed state nothing but a time-to-live bounds (windowed operators clean up by watermark). */
const TTL_OPERATORS: ReadonlySet<OperatorSpec['kind']> = new Set(['group-aggregate', 'join', 'semi-join', 'rank', 'over-aggregate', 'over-window', 'set-operation', 'sink-upsert-materializer', 'changelog-normalize']);

/** The job graph of one or more sink plans (a statement set runs several sinks in one job). */
export function toJobGraph(roots: readonly PhysicalNode[], options: JobGraphOptions): JobGraph {
  return lowerToJobGraph(roots, options).graph;
}

/**
 * The job graph, and the job node each physical node became (exchanges and the nodes fused into a
 * watermark assigner have none). Two physical nodes with one job node are shared: a source read
 * by several scans, or an operator computed once for several equal sub-plans (Flink's sub-plan
 * reuse: q5's two equal window aggregates run once). Sinks are never shared.
 */
export function lowerToJobGraph(roots: readonly PhysicalNode[], options: JobGraphOptions): { graph: JobGraph; nodeIds: ReadonlyMap<PhysicalNode, string> } {
  const nodes: JobNode[] = [];
  const ids = new Map<PhysicalNode, string>();
  const consumers = consumerCounts(roots);
  const readers = options.reuseSources === false || options.reuseSubplans === false ? undefined : assignerReaders(roots);
  const shared = new Map<string, string>();

  const edgeTo = (input: PhysicalNode): JobEdge => {
    if (input.kind === 'exchange') {
      return { from: visit(input.input), partitioning: input.keys === null ? { kind: 'single' } : { kind: 'hash', keys: input.keys } };
    }
    return { from: visit(input), partitioning: { kind: 'forward' } };
  };

  const add = (spec: OperatorSpec, inputs: readonly JobEdge[], schema: Schema): string => {
    const ttl = (options.stateTtlMillis ?? 0) > 0 && TTL_OPERATORS.has(spec.kind) ? { stateTtlMillis: options.stateTtlMillis } : {};
    const parallelism = parallelismOf(spec, inputs, nodes, options.parallelism);
    const id = `${nodes.length + 1}-${spec.kind}`;
    nodes.push({ id, spec, parallelism, inputs, schema, ...ttl });
    return id;
  };

  /** A sink's input edges: through its upsert materializer (keyed by the primary key), or by all columns into a multiset table. */
  const sinkInputs = (node: Extract<PhysicalNode, { kind: 'sink' }>): JobEdge[] => {
    const input = edgeTo(node.input);
    const columns = node.schema.map((_, i) => i);
    if (node.materialize !== undefined) {
      const keys = node.target.primaryKey.map((name) => node.schema.findIndex((f) => f.name === name));
      const spec: OperatorSpec = { kind: 'sink-upsert-materializer', table: node.target.name, keys, conflictStrategy: node.materialize };
      return [{ from: add(spec, [{ from: input.from, partitioning: { kind: 'hash', keys } }], node.schema), partitioning: { kind: 'forward' } }];
    }
    if (node.target.multiset === true && input.partitioning.kind !== 'single') return [{ from: input.from, partitioning: { kind: 'hash', keys: columns } }];
    return [input];
  };

  const visit = (node: PhysicalNode): string => {
    const existing = ids.get(node);
    if (existing !== undefined) return existing;
    const fused = fuseAroundAssigner(node, consumers, readers);
    const inputs = node.kind === 'sink' ? sinkInputs(node) : (fused === undefined ? physicalInputs(node) : [fused.input]).map(edgeTo);
    const spec = fused?.spec ?? specOf(node, options.timeZone);
    refuseWatermarkOutsideCalc(spec);
    const schema = fused?.schema ?? node.schema;
    const ttl = (options.stateTtlMillis ?? 0) > 0 && TTL_OPERATORS.has(spec.kind) ? { stateTtlMillis: options.stateTtlMillis } : {};
    const idle = (options.sourceIdleTimeoutMillis ?? 0) > 0 && spec.kind === 'source' ? { sourceIdleTimeoutMillis: options.sourceIdleTimeoutMillis } : {};
    const parallelism = parallelismOf(spec, inputs, nodes, options.parallelism);
    const identity = sharingIdentity(spec, [schema, inputs, parallelism, ttl, idle], options);
    const same = identity === undefined ? undefined : shared.get(identity);
    if (same !== undefined) {
      ids.set(node, same);
      return same;
    }
    const id = `${nodes.length + 1}-${spec.kind}`;
    nodes.push({ id, spec, parallelism, inputs, schema, ...ttl, ...idle });
    ids.set(node, id);
    if (identity !== undefined) shared.set(identity, id);
    return id;
  };

  for (const root of roots) visit(root);
  const zone = options.timeZone === undefined || isUtcZone(options.timeZone) ? {} : { localTimeZone: options.timeZone };
  return { graph: { version: JOB_GRAPH_VERSION, name: options.name, nodes, ...zone }, nodeIds: ids };
}

/**
 * What makes a node equal to another that one job node may serve for both: its spec and `rest`
 * (schema, inputs, layout) as JSON, in which literal values JSON would lose or confuse (bigints,
 * non-finite numbers and -0, MAP and MULTISET values) are tagged objects. Undefined for a node
 * never shared: a sink, a source or other operator when its kind of reuse is off, and an operator
 * calling a non-deterministic function.
 */
function sharingIdentity(spec: OperatorSpec, rest: readonly unknown[], options: JobGraphOptions): string | undefined {
  if (spec.kind === 'sink') return undefined;
  if (spec.kind === 'source' ? options.reuseSources === false : options.reuseSubplans === false) return undefined;
  let deterministic = true;
  const identity = taggedJson([spec, ...rest], (v) => {
    if (isCall(v) && options.isDeterministicFunction?.(v.name) === false) deterministic = false;
  });
  return deterministic ? identity : undefined;
}

/**
 * Refuses CURRENT_WATERMARK anywhere but in a Calc (also one fused with a watermark assigner): only
 * a Calc's generated loop is given its operator's watermark (ExprCompiler.calc), so such a call
 * elsewhere (a join condition, a window's arguments) is refused when the query is planned.
 */
function refuseWatermarkOutsideCalc(spec: OperatorSpec): void {
  if (spec.kind === 'calc' || spec.kind === 'watermark-assigner') return;
  taggedJson(spec, (v) => {
    if (isCall(v) && v.name === 'CURRENT_WATERMARK') {
      throw new WeirError('UNSUPPORTED', `CURRENT_WATERMARK can only be computed in a projection or a filter (the SELECT list or WHERE), not in a ${spec.kind} operator's expressions`);
    }
  });
}

/** JSON of `value` with the literals JSON would lose or confuse tagged; `visit` sees every value. */
function taggedJson(value: unknown, visit?: (value: unknown) => void): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    visit?.(v);
    if (typeof v === 'bigint') return { $bigint: String(v) };
    if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return { $number: Object.is(v, -0) ? '-0' : String(v) };
    if (v instanceof Map) return { $map: [...v.entries()] };
    if (v instanceof Set) return { $set: [...v] };
    return v;
  });
}

/** A function call of a scalar expression, wherever it sits in a spec. */
function isCall(value: unknown): value is Extract<ScalarExpr, { kind: 'call' }> {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'call' && typeof (value as { name?: unknown }).name === 'string';
}

/** How many distinct nodes read each node. */
function consumerCounts(roots: readonly PhysicalNode[]): Map<PhysicalNode, number> {
  const counts = new Map<PhysicalNode, number>();
  const seen = new Set<PhysicalNode>();
  const walk = (node: PhysicalNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const input of new Set(physicalInputs(node))) {
      counts.set(input, (counts.get(input) ?? 0) + 1);
      walk(input);
    }
  };
  for (const root of roots) walk(root);
  return counts;
}

/** Who reads a watermark assigner, counting equal assigners (by their sub-plan) as one. */
interface AssignerReaders {
  /** How many different operators read it (equal Calcs count once). */
  readonly count: number;
  /** Whether every one of them is a Calc. */
  readonly onlyCalcs: boolean;
}

/**
 * With sub-plan reuse, who reads each watermark assigner: two views filtering one source (q8's
 * person and auction) plan an assigner each, which reuse runs once, computing the watermark once
 * for both.
 */
function assignerReaders(roots: readonly PhysicalNode[]): Map<PhysicalNode, AssignerReaders> {
  const readersOf = new Map<string, { readonly calcs: Set<string>; others: number }>();
  const identities = new Map<PhysicalNode, string>();
  const seen = new Set<PhysicalNode>();
  const walk = (node: PhysicalNode): void => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const input of physicalInputs(node)) {
      if (input.kind === 'watermark-assigner') {
        const identity = identities.get(input) ?? taggedJson(input);
        identities.set(input, identity);
        let readers = readersOf.get(identity);
        if (readers === undefined) readersOf.set(identity, (readers = { calcs: new Set(), others: 0 }));
        if (node.kind === 'calc') readers.calcs.add(taggedJson([node.condition, node.projection]));
        else readers.others++;
      }
      walk(input);
    }
  };
  for (const root of roots) walk(root);
  return new Map(
    [...identities].map(([node, identity]) => {
      const { calcs, others } = readersOf.get(identity)!;
      return [node, { count: calcs.size + others, onlyCalcs: others === 0 }];
    }),
  );
}

/** A job node built from several physical nodes: its spec, the node it reads, and its output schema. */
interface Fused {
  readonly spec: OperatorSpec;
  readonly input: PhysicalNode;
  readonly schema: Schema;
}

/**
 * The job node of a watermark assigner with the Calcs around it, or undefined for a node this does
 * not concern. The assigner takes in a condition-free Calc below it that nothing else reads (a
 * computed rowtime column), and the Calc above it when that is its only reader. With `readers`
 * (sub-plan reuse), equal assigners that different operators read stay equal, so that they run
 * once; when all those readers are Calcs, the shared assigner passes its input's rows through
 * (computing only the watermark) and each Calc above computes the columns below itself, so that
 * no row is built for records a Calc drops.
 */
function fuseAroundAssigner(node: PhysicalNode, consumers: ReadonlyMap<PhysicalNode, number>, readers: ReadonlyMap<PhysicalNode, AssignerReaders> | undefined): Fused | undefined {
  const belowOf = (assigner: PhysicalNode): Extract<PhysicalNode, { kind: 'calc' }> | undefined =>
    assigner.kind === 'watermark-assigner' && assigner.input.kind === 'calc' && assigner.input.condition === null && consumers.get(assigner.input) === 1 ? assigner.input : undefined;
  const inliner = (below: Extract<PhysicalNode, { kind: 'calc' }> | undefined) => {
    const projected = below?.projection ?? null;
    return (expr: ScalarExpr): ScalarExpr => (projected === null ? expr : remapInputs(expr, (ref) => projected[ref.index]!));
  };
  const passesThrough = (assigner: PhysicalNode): boolean => {
    const info = readers?.get(assigner);
    return info !== undefined && info.count > 1 && info.onlyCalcs && belowOf(assigner)?.projection != null;
  };
  if (node.kind === 'calc' && passesThrough(node.input)) {
    const below = belowOf(node.input)!;
    const inline = inliner(below);
    const projection = node.projection?.map(inline) ?? below.projection;
    return { spec: { kind: 'calc', condition: node.condition === null ? null : inline(node.condition), projection }, input: node.input, schema: node.schema };
  }
  const above = node.kind === 'calc' && node.input.kind === 'watermark-assigner' && consumers.get(node.input) === 1 && (readers?.get(node.input)?.count ?? 1) === 1 ? node : undefined;
  const assigner = above?.input ?? node;
  if (assigner.kind !== 'watermark-assigner') return undefined;
  const below = belowOf(assigner);
  const inline = inliner(below);
  const watermark = inline(assigner.watermark);
  if (passesThrough(assigner)) return { spec: { kind: 'watermark-assigner', watermark, condition: null, projection: null }, input: below!.input, schema: below!.input.schema };
  const spec: WatermarkAssignerSpec = {
    kind: 'watermark-assigner',
    watermark,
    condition: above?.condition == null ? null : inline(above.condition),
    projection: above?.projection == null ? (below?.projection ?? null) : above.projection.map(inline),
  };
  return { spec, input: below?.input ?? assigner.input, schema: node.schema };
}

/**
 * Sources and VALUES read with one subtask; an exchange by key spreads the work over the
 * configured parallelism; operators fed only by forward edges keep their input's parallelism,
 * so that chains need no rebalancing.
 */
function parallelismOf(spec: OperatorSpec, inputs: readonly JobEdge[], nodes: readonly JobNode[], configured: number): number {
  if (spec.kind === 'source' || spec.kind === 'values') return 1;
  if (inputs.some((e) => e.partitioning.kind === 'single')) return 1;
  if (inputs.some((e) => e.partitioning.kind !== 'forward')) return configured;
  return Math.max(...inputs.map((e) => nodes.find((n) => n.id === e.from)!.parallelism));
}

/** The zone of windows over `timeType`: the session's for a TIMESTAMP_LTZ time column outside UTC, else none. */
function windowZone(timeType: SqlType, zone: string | undefined): { timeZone?: string } {
  return timeType.kind === 'TIMESTAMP_LTZ' && zone !== undefined && !isUtcZone(zone) ? { timeZone: zone } : {};
}

function specOf(node: PhysicalNode, zone: string | undefined): OperatorSpec {
  switch (node.kind) {
    case 'source':
      return { kind: 'source', table: node.source.name, connector: node.source.connector, options: node.source.options, schema: node.tableSchema, ...(node.source.primaryKey.length > 0 ? { primaryKey: node.source.primaryKey } : {}) };
    case 'values':
      return { kind: 'values', rows: node.rows };
    case 'changelog-normalize':
      return { kind: 'changelog-normalize', keys: node.keys, emitUpdateBefore: node.emitUpdateBefore };
    case 'calc':
      return { kind: 'calc', condition: node.condition, projection: node.projection };
    case 'expand':
      return { kind: 'expand', projects: node.projects };
    case 'correlate':
      return { kind: 'correlate', fn: node.fn, joinType: node.joinType, inputArity: node.input.schema.length, functionArity: node.schema.length - node.input.schema.length, condition: node.condition };
    case 'watermark-assigner':
      throw new Error('a watermark assigner is lowered with the Calcs around it (fuseAroundAssigner)');
    case 'group-aggregate':
      return {
        kind: 'group-aggregate',
        keys: node.keys,
        aggregates: aggregateSpecs(node.calls),
        inputRetracts: retracts(node.input.mode),
        emitUpdateBefore: node.emitUpdateBefore,
      };
    case 'window-aggregate':
      return {
        kind: 'window-aggregate',
        window: node.window,
        timeIndex: node.timeIndex,
        ...windowZone(node.input.schema[node.timeIndex]!.type, zone),
        keys: node.keys,
        aggregates: aggregateSpecs(node.calls),
        ...(node.processingTime === true ? { processingTime: true } : {}),
      };
    case 'lookup-join':
      return lookupJoinSpec(node);
    case 'temporal-join': {
      const { joinType, leftKeys, rightKeys, leftTimeIndex, rightTimeIndex, condition } = node;
      return { kind: 'temporal-join', joinType, leftKeys, rightKeys, leftTimeIndex, rightTimeIndex, leftArity: node.left.schema.length, rightArity: node.right.schema.length, condition };
    }
    case 'rank':
      return {
        kind: 'rank',
        partitionKeys: node.partitionKeys,
        orderKeys: node.orderKeys,
        limit: node.range.end,
        ...(node.range.start === 1 ? {} : { rankStart: node.range.start }),
        ...(node.outputNumber ? {} : { outputRankNumber: false }),
        ...(node.rankType === 'ROW_NUMBER' ? {} : { rankType: node.rankType }),
        ...(retracts(node.input.mode) ? { inputRetracts: true } : {}),
      };
    case 'over-aggregate':
      return {
        kind: 'over-aggregate',
        partitionKeys: node.partitionKeys,
        timeIndex: node.timeIndex,
        frame: node.frame,
        aggregates: aggregateSpecs(node.calls.filter((c): c is AggregateCall => !('lag' in c))),
        ...lagSpecs(node.calls),
        mode: retracts(node.input.mode) ? 'updating' : timeAttributeOf(node.input.schema[node.timeIndex]!.type) === 'proctime' ? 'proctime' : 'rowtime',
        ...(node.nullsLast ? { nullsLast: true } : {}),
      };
    case 'over-window':
      return { kind: 'over-window', partitionKeys: node.partitionKeys, orderKeys: node.orderKeys, functions: node.calls.map(windowFunctionSpec) };
    case 'join':
      return {
        kind: 'join',
        leftKeys: node.leftKeys,
        rightKeys: node.rightKeys,
        leftArity: node.left.schema.length,
        rightArity: node.right.schema.length,
        leftRetracts: retracts(node.left.mode),
        rightRetracts: retracts(node.right.mode),
        ...(node.joinType === 'INNER' ? {} : { joinType: node.joinType }),
        ...(node.nullSafe === undefined ? {} : { nullSafe: node.nullSafe }),
        ...(node.condition === null ? {} : { condition: node.condition }),
      };
    case 'semi-join':
      return {
        kind: 'semi-join',
        anti: node.anti,
        leftKeys: node.leftKeys,
        rightKeys: node.rightKeys,
        leftArity: node.left.schema.length,
        rightArity: node.right.schema.length,
        ...(node.nullSafe === undefined ? {} : { nullSafe: node.nullSafe }),
        ...(node.condition === null ? {} : { condition: node.condition }),
        ...(node.nullAwareKey === undefined ? {} : { nullAwareKey: node.nullAwareKey }),
      };
    case 'interval-join': {
      const { joinType, leftKeys, rightKeys, bounds, condition } = node;
      return { kind: 'interval-join', joinType, leftKeys, rightKeys, leftArity: node.left.schema.length, rightArity: node.right.schema.length, bounds, condition };
    }
    case 'window-table':
      return {
        kind: 'window-table',
        window: node.window,
        timeIndex: node.timeIndex,
        ...windowZone(node.input.schema[node.timeIndex]!.type, zone),
        ...(isNanoTimestamp(node.input.schema[node.timeIndex]!.type) ? { nanos: true } : {}),
      };
    case 'window-rank':
      return {
        kind: 'window-rank',
        partitionKeys: node.partitionKeys,
        orderKeys: node.orderKeys,
        limit: node.range.end,
        ...(node.range.start === 1 ? {} : { rankStart: node.range.start }),
        ...(node.outputNumber ? {} : { outputRankNumber: false }),
        windowEnd: node.windowEnd,
        ...(node.zoned === true && zone !== undefined && !isUtcZone(zone) ? { timeZone: zone } : {}),
      };
    case 'window-join':
      return {
        kind: 'window-join',
        joinType: node.joinType,
        leftArity: node.left.schema.length,
        rightArity: node.right.schema.length,
        leftKeys: node.leftKeys,
        rightKeys: node.rightKeys,
        leftWindowEnd: node.leftWindow.end,
        ...(node.zoned === true && zone !== undefined && !isUtcZone(zone) ? { timeZone: zone } : {}),
        rightWindowEnd: node.rightWindow.end,
      };
    case 'dynamic-filter':
      return { kind: 'dynamic-filter', inputIndex: node.inputIndex, comparison: node.comparison };
    case 'union':
      return { kind: 'union' };
    case 'set-operation':
      return { kind: 'set-operation', op: node.op, all: node.all, arity: node.schema.length };
    case 'sink':
      return {
        kind: 'sink',
        table: node.target.name,
        connector: node.target.connector,
        options: node.target.options,
        schema: node.schema,
        primaryKey: node.target.primaryKey,
        ...(node.target.partitionedBy === undefined ? {} : { partitionedBy: node.target.partitionedBy }),
        ...(node.target.multiset === true ? { multiset: true } : {}),
      };
    case 'exchange':
      throw new Error('an exchange is lowered into the edge of its consumer');
  }
}

function lookupJoinSpec(node: Extract<PhysicalNode, { kind: 'lookup-join' }>): LookupJoinSpec {
  const { name, connector, options, schema, keys } = node.table;
  return { kind: 'lookup-join', joinType: node.joinType, lookup: { table: name, connector, options, schema, keys }, inputKeys: node.inputKeys, inputArity: node.input.schema.length, condition: node.condition };
}

function retracts(mode: ChangelogMode): boolean {
  return mode.updateBefore || mode.delete;
}

/** The LAG calls of an OVER aggregate with their output positions, when it has any. */
function lagSpecs(calls: readonly OverCall[]): { lags?: OverLagSpec[] } {
  const lags = calls.flatMap((c, position) => ('lag' in c ? [{ position, arg: c.arg, offset: c.offset, default: c.default }] : []));
  return lags.length === 0 ? {} : { lags };
}

/** A window call as the job graph runs it: without its output name and type, an aggregate as its spec. */
function windowFunctionSpec(call: WindowCall): WindowFunction<AggregateCallSpec> {
  switch (call.kind) {
    case 'ranking':
      return { kind: 'ranking', function: call.function };
    case 'ntile':
      return { kind: 'ntile', buckets: call.buckets };
    case 'offset':
      return { kind: 'offset', function: call.function, arg: call.arg, offset: call.offset, default: call.default };
    case 'frame-value':
      return { kind: 'frame-value', function: call.function, arg: call.arg, frame: call.frame };
    case 'aggregate':
      return { kind: 'aggregate', aggregate: aggregateSpecs([call.aggregate])[0]!, frame: call.frame };
    default: {
      const unknown: never = call;
      throw new Error(`unknown window call ${JSON.stringify(unknown)}`);
    }
  }
}

function aggregateSpecs(calls: readonly AggregateCall[]): AggregateCallSpec[] {
  return calls.map((c) => ({ function: c.function, args: c.args, distinct: c.distinct, filter: c.filter, type: c.type, argTypes: c.argTypes }));
}
