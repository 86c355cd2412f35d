/**
 * Chooses a streaming implementation for each logical node: projections and filters become one
 * Calc (consecutive ones merge), aggregations get a hash exchange on their keys. A filter right
 * above a regular inner join becomes the join's condition, as in Flink's plans, so that the join
 * tests it before building an output row. Changelog modes are filled in afterwards by
 * plan/changelog.
 */
import { WeirError } from '../../common/errors.js';
import { Exprs, inputRefsOf, remapInputs, type ScalarExpr } from '../../expr/scalar-expr.js';
import { SqlTypes } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import { TUMBLE_BOUND } from '../../expr/functions/temporal-functions.js';
import { INSERT_ONLY } from '../changelog/changelog-mode.js';
import { isRowFunctionWindow, LogicalProject, type LogicalNode } from '../logical/logical-node.js';
import { lowerJoin, lowerSemiJoin } from './lower-join.js';
import { lowerWindowJoin } from './lower-window-join.js';
import { lowerWindowRank } from './lower-window-rank.js';
import type { PhysicalNode } from './physical-node.js';

/** Lowers a logical plan; every mode is provisional (insert-only) until inference runs. */
export function lowerToPhysical(node: LogicalNode): PhysicalNode {
  const mode = INSERT_ONLY;
  switch (node.kind) {
    case 'scan': {
      const source: PhysicalNode = { kind: 'source', source: node.source, tableSchema: node.schema, schema: node.schema, mode };
      if (node.source.changelog !== 'upsert') return source;
      // An upsert changelog (updates without their old row, deletes by key) is made whole per primary key.
      const keys = node.source.primaryKey.map((name) => node.schema.findIndex((f) => f.name === name));
      if (keys.length === 0 || keys.some((k) => k < 0)) {
        throw new WeirError('PLANNING_ERROR', `table '${node.source.qualifiedName}' reads an upsert changelog, which needs the table's PRIMARY KEY among its columns`);
      }
      const exchange: PhysicalNode = { kind: 'exchange', input: source, keys, schema: node.schema, mode };
      return { kind: 'changelog-normalize', input: exchange, keys, emitUpdateBefore: true, schema: node.schema, mode };
    }
    case 'values':
      return { kind: 'values', rows: node.rows, schema: node.schema, mode };
    case 'project':
      return mergeCalc(lowerToPhysical(node.input), null, node.exprs, node);
    case 'filter': {
      const input = lowerToPhysical(node.input);
      if (input.kind === 'join' && input.joinType === 'INNER' && input.condition === null) return { ...input, condition: node.condition };
      return mergeCalc(input, node.condition, null, node);
    }
    case 'expand':
      return { kind: 'expand', input: lowerToPhysical(node.input), projects: node.projects, idIndex: node.idIndex, schema: node.schema, mode };
    case 'correlate':
      return { kind: 'correlate', input: lowerToPhysical(node.input), fn: node.fn, joinType: node.joinType, condition: node.condition, schema: node.schema, mode };
    case 'watermark-assigner':
      return { kind: 'watermark-assigner', input: lowerToPhysical(node.input), rowtimeIndex: node.rowtimeIndex, watermark: node.watermark, schema: node.schema, mode };
    case 'aggregate': {
      const windowed = lowerWindowAggregate(node);
      if (windowed !== undefined) return windowed;
      const input = lowerToPhysical(node.input);
      const exchange: PhysicalNode = { kind: 'exchange', input, keys: node.keys.length === 0 ? null : node.keys, schema: input.schema, mode };
      return { kind: 'group-aggregate', input: exchange, keys: node.keys, calls: node.calls, emitUpdateBefore: true, schema: node.schema, mode };
    }
    case 'union':
      return { kind: 'union', inputs: node.inputs.map(lowerToPhysical), schema: node.schema, mode };
    case 'set-operation': {
      const allColumns = node.schema.length === 0 ? null : node.schema.map((_, i) => i);
      const exchange = (input: PhysicalNode): PhysicalNode => ({ kind: 'exchange', input, keys: allColumns, schema: input.schema, mode });
      return { kind: 'set-operation', op: node.op, all: node.all, left: exchange(lowerToPhysical(node.left)), right: exchange(lowerToPhysical(node.right)), schema: node.schema, mode };
    }
    case 'sink':
      return { kind: 'sink', input: lowerToPhysical(node.input), target: node.target, schema: node.schema, mode };
    case 'join':
      return lowerWindowJoin(node, lowerToPhysical) ?? lowerJoin(node, lowerToPhysical(node.left), lowerToPhysical(node.right));
    case 'semi-join':
      return lowerSemiJoin(node, lowerToPhysical(node.left), lowerToPhysical(node.right));
    case 'apply':
      throw new WeirError('PLANNING_ERROR', `the subquery ${node.sql} was not decorrelated`, {
        hint: "the rules 'subquery-to-semi-join' and 'scalar-subquery-to-join' turn subqueries into joins; enable them again ('table.optimizer.<rule>.enabled')",
      });
    case 'lookup-join':
      return { ...node, input: lowerToPhysical(node.input), mode };
    case 'dynamic-filter': {
      const single = (input: PhysicalNode): PhysicalNode => ({ kind: 'exchange', input, keys: null, schema: input.schema, mode });
      const { inputIndex, comparison, schema } = node;
      return { kind: 'dynamic-filter', input: single(lowerToPhysical(node.input)), bound: single(lowerToPhysical(node.bound)), inputIndex, comparison, schema, mode };
    }
    case 'temporal-join': {
      const left = lowerToPhysical(node.left);
      const right = lowerToPhysical(node.right);
      const exchange = (input: PhysicalNode, keys: readonly number[]): PhysicalNode => ({ kind: 'exchange', input, keys, schema: input.schema, mode });
      return { ...node, left: exchange(left, node.leftKeys), right: exchange(right, node.rightKeys), mode };
    }
    case 'rank': {
      const range = node.range;
      if (range === undefined) {
        // Without an upper bound (no Top-N), every row is numbered by the general OVER operator
        // (weir's extension: Flink runs ranks only as Top-N).
        const input = lowerToPhysical(node.input);
        const exchange: PhysicalNode = { kind: 'exchange', input, keys: node.partitionKeys.length === 0 ? null : node.partitionKeys, schema: input.schema, mode };
        const number = node.schema[node.schema.length - 1]!;
        const calls = [{ kind: 'ranking' as const, function: node.rankType, name: number.name, type: number.type }];
        return { kind: 'over-window', input: exchange, partitionKeys: node.partitionKeys, orderKeys: node.orderKeys, calls, schema: node.schema, mode };
      }
      const windowed = lowerWindowRank(node, range, lowerToPhysical);
      if (windowed !== undefined) return windowed;
      const input = lowerToPhysical(node.input);
      const keys = node.partitionKeys.length === 0 ? null : node.partitionKeys;
      return {
        kind: 'rank',
        rankType: node.rankType,
        input: { kind: 'exchange', input, keys, schema: input.schema, mode },
        partitionKeys: node.partitionKeys,
        orderKeys: node.orderKeys,
        range,
        outputNumber: node.outputNumber,
        schema: node.schema,
        mode,
      };
    }
    case 'over-window':
    case 'over-aggregate': {
      const input = lowerToPhysical(node.input);
      const exchange: PhysicalNode = { kind: 'exchange', input, keys: node.partitionKeys.length === 0 ? null : node.partitionKeys, schema: input.schema, mode };
      return { ...node, input: exchange, mode };
    }
    case 'window-tvf':
      if (node.window.kind === 'SESSION') {
        throw new WeirError('UNSUPPORTED', 'SESSION windows are only supported in a GROUP BY that includes window_start and window_end', {
          hint: 'aggregate the window: ... GROUP BY window_start, window_end',
        });
      }
      if (node.window.kind === 'TUMBLE' && isRowFunctionWindow(node)) return tumbleCalc(node, node.window);
      return { kind: 'window-table', input: lowerToPhysical(node.input), window: node.window, timeIndex: node.timeIndex, schema: node.schema, mode };
  }
}

/**
 * TUMBLE over a plain timestamp (no time attribute): one window per row, so a Calc — rows with a
 * NULL time belong to no window and are filtered out; window_start, window_end and window_time
 * (end - 1 ms) are computed from the time by {@link TUMBLE_BOUND}. It passes any changelog.
 */
function tumbleCalc(node: Extract<LogicalNode, { kind: 'window-tvf' }>, window: Extract<WindowSpec, { kind: 'TUMBLE' }>): PhysicalNode {
  const input = node.input.schema;
  const time = Exprs.inputRef(node.timeIndex, input[node.timeIndex]!.type);
  const interval = (ms: number): ScalarExpr => Exprs.literal(ms, SqlTypes.intervalDayTime(false));
  const bound = (shift: number): ScalarExpr => Exprs.call(TUMBLE_BOUND, [time, interval(window.size), interval(window.offset ?? 0), interval(shift)], SqlTypes.timestamp(3, false));
  // Over a TIMESTAMP_LTZ the bounds are wall-clock times of the session zone (TUMBLE_BOUND reads it so) and window_time an instant;
  // window_time keeps a TIMESTAMP(p > 3) column's precision.
  const windowTimeType = node.schema[input.length + 2]!.type;
  const last = bound(window.size - 1);
  const windowTime = windowTimeType.kind === 'TIMESTAMP' && windowTimeType.precision === 3 ? last : Exprs.cast(last, windowTimeType);
  const projection = [...input.map((f, i) => Exprs.inputRef(i, f.type)), bound(0), bound(window.size), windowTime];
  const condition = time.type.nullable ? Exprs.call('IS NOT NULL', [time], SqlTypes.boolean(false)) : null;
  return mergeCalc(lowerToPhysical(node.input), condition, projection, node);
}

/**
 * GROUP BY over a window TVF (directly, or through the projection the binder puts before every
 * aggregation, and with grouping sets through the Expand or projection above that) whose keys
 * include window_start and window_end becomes a window aggregation: the projections are computed
 * on the TVF's input (plus the time column), and the window operator appends the window columns
 * itself. Grouping sets run as Flink runs them: an Expand below the window aggregation, each set
 * keeping window_start and window_end.
 */
function lowerWindowAggregate(node: Extract<LogicalNode, { kind: 'aggregate' }>): PhysicalNode | undefined {
  // The projections between the aggregate and the TVF: one (a Calc), or one per grouping set (an Expand).
  let projects: readonly (readonly ScalarExpr[])[] | undefined;
  let below: LogicalNode = node.input;
  let names = node.input.schema.map((f) => f.name);
  if (below.kind === 'expand' || (below.kind === 'project' && below.input.kind === 'project' && below.input.input.kind === 'window-tvf')) {
    projects = below.kind === 'expand' ? below.projects : [below.exprs];
    below = below.input;
  }
  const pre = below.kind === 'project' ? below : undefined;
  const tvf = pre?.input ?? below;
  // Over a plain timestamp the window columns are ordinary values: an ordinary (updating) GROUP BY.
  if (tvf.kind !== 'window-tvf' || isRowFunctionWindow(tvf)) return undefined;
  if (projects === undefined) {
    projects = [pre?.exprs ?? tvf.schema.map((f, i) => Exprs.inputRef(i, f.type))];
    names = (pre ?? tvf).schema.map((f) => f.name);
  } else if (pre !== undefined) {
    projects = projects.map((p) => p.map((e) => remapInputs(e, (ref) => pre.exprs[ref.index]!)));
  }
  const width = tvf.input.schema.length;
  const isColumn = (e: ScalarExpr, index: number): boolean => e.kind === 'input-ref' && e.index === index;
  const role = projects[0]!.map((_, j) => (projects!.every((p) => isColumn(p[j]!, width)) ? 'start' : projects!.every((p) => isColumn(p[j]!, width + 1)) ? 'end' : 'value'));
  const keyRoles = node.keys.map((k) => role[k]);
  if (!keyRoles.includes('start') || !keyRoles.includes('end')) {
    throw new WeirError('UNSUPPORTED', `a GROUP BY over a ${tvf.window.kind} window must include window_start and window_end${projects.length > 1 ? ' in every grouping set' : ''}`);
  }
  if (tvf.window.kind === 'SESSION') {
    if (projects.length > 1) throw new WeirError('UNSUPPORTED', 'GROUPING SETS, ROLLUP and CUBE are not supported over SESSION windows', { hint: 'sessions are formed per group: aggregate each grouping in its own query' });
    requireSessionPartition(tvf, node.keys.map((k) => projects![0]![k]!).filter((_, i) => keyRoles[i] === 'value'));
  }
  projects.forEach((p) =>
    p.forEach((e, j) => {
      if (role[j] === 'value' && inputRefsOf(e).some((r) => r >= width)) {
        throw new WeirError('UNSUPPORTED', 'window_start, window_end and window_time may only be grouped by, not computed on, in a window aggregation');
      }
    }),
  );
  const valueNames = names.filter((_, i) => role[i] === 'value');
  const timeColumn = valueNames.length;
  const time = Exprs.inputRef(tvf.timeIndex, tvf.input.schema[tvf.timeIndex]!.type);
  const preProjections = projects.map((p) => [...p.filter((_, j) => role[j] === 'value'), time]);
  let next = 0;
  const position = role.map((r) => (r === 'start' ? timeColumn + 1 : r === 'end' ? timeColumn + 2 : next++));
  const preNames = preProjections[0]!.map((_, i) => (i === timeColumn ? tvf.input.schema[tvf.timeIndex]!.name : valueNames[i]!));
  // An Expand's columns have the types of the grouping (a column some sets null out is nullable).
  const preSchema = preProjections[0]!.map((e, i) => ({
    name: preNames[i]!,
    type: i === timeColumn ? e.type : node.input.schema[role.findIndex((_, j) => position[j] === i)]!.type,
  }));
  const input = lowerToPhysical(tvf.input);
  const calc: PhysicalNode =
    preProjections.length === 1
      ? mergeCalc(input, null, preProjections[0]!, LogicalProject.create({ input: tvf.input, exprs: preProjections[0]!, names: preNames }))
      : { kind: 'expand', input, projects: preProjections, idIndex: position[(node.input as Extract<LogicalNode, { kind: 'expand' }>).idIndex]!, schema: preSchema, mode: INSERT_ONLY };
  const keys = node.keys.map((k) => position[k]!);
  const partitionKeys = keys.filter((k) => k < timeColumn);
  const exchange: PhysicalNode = { kind: 'exchange', input: calc, keys: partitionKeys.length === 0 ? null : partitionKeys, schema: calc.schema, mode: INSERT_ONLY };
  const calls = node.calls.map((c) => ({ ...c, args: c.args.map((a) => position[a]!), filter: c.filter === null ? null : position[c.filter]! }));
  const timeType = tvf.input.schema[tvf.timeIndex]!.type;
  const processingTime = (timeType.kind === 'TIMESTAMP' || timeType.kind === 'TIMESTAMP_LTZ') && timeType.timeAttribute === 'proctime';
  return { kind: 'window-aggregate', input: exchange, window: tvf.window, timeIndex: timeColumn, keys, calls, ...(processingTime ? { processingTime } : {}), schema: node.schema, mode: INSERT_ONLY };
}

/**
 * Sessions are formed per group (Flink checks the same): the grouping keys besides window_start
 * and window_end must be exactly the SESSION window's PARTITION BY columns.
 */
function requireSessionPartition(tvf: Extract<LogicalNode, { kind: 'window-tvf' }>, valueKeys: readonly ScalarExpr[]): void {
  const grouped = new Set(valueKeys.map((e) => (e.kind === 'input-ref' ? e.index : -1)));
  const partition = new Set(tvf.partitionKeys);
  if (grouped.size === partition.size && [...grouped].every((k) => partition.has(k))) return;
  const names = tvf.partitionKeys.map((k) => tvf.input.schema[k]!.name).join(', ');
  throw new WeirError('UNSUPPORTED', `a GROUP BY over a SESSION window must group by exactly its PARTITION BY columns (${names === '' ? 'none' : names}) besides window_start and window_end`, {
    hint: 'sessions are formed per group: write SESSION(TABLE t PARTITION BY <the grouping columns>, DESCRIPTOR(ts), gap)',
  });
}

/**
 * A Calc applying `condition` then `projection` on `input`, merged into `input` when that is a
 * Calc itself (its projection is substituted into ours). An identity projection is dropped.
 */
function mergeCalc(input: PhysicalNode, condition: ScalarExpr | null, projection: readonly ScalarExpr[] | null, node: LogicalNode): PhysicalNode {
  const schema = node.schema;
  const isIdentity = projection !== null && projection.length === input.schema.length && projection.every((e, i) => e.kind === 'input-ref' && e.index === i);
  const ownProjection = isIdentity ? null : projection;
  if (ownProjection === null && condition === null) return { ...input, schema } as PhysicalNode;
  if (input.kind !== 'calc') return { kind: 'calc', input, condition, projection: ownProjection, schema, mode: INSERT_ONLY };
  const inline = (expr: ScalarExpr): ScalarExpr => (input.projection === null ? expr : remapInputs(expr, (ref) => input.projection![ref.index]!));
  const mergedCondition = condition === null ? input.condition : input.condition === null ? inline(condition) : Exprs.call('AND', [input.condition, inline(condition)], SqlTypes.boolean());
  const mergedProjection = ownProjection === null ? input.projection : ownProjection.map(inline);
  return { kind: 'calc', input: input.input, condition: mergedCondition, projection: mergedProjection, schema, mode: INSERT_ONLY };
}
