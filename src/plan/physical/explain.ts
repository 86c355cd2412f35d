/**
 * EXPLAIN: renders a physical plan as Flink does, one node per line, children indented under
 * `+- `, every node with its changelog mode, expressions written with column names.
 */
import { formatOrderKey } from '../../common/order-key.js';
import { formatOverFrame } from '../../common/over-frame.js';
import type { Schema } from '../../common/schema.js';
import type { WindowSpec } from '../../common/window-spec.js';
import { joinTypeName } from '../../common/join-type.js';
import { formatValue } from '../../common/value-format.js';
import { formatType } from '../../common/sql-type.js';
import type { CorrelateFunction } from '../../expr/correlate-function.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';
import { formatMode } from '../changelog/changelog-mode.js';
import { upsertKeys } from '../changelog/upsert-keys.js';
import type { AggregateCall, RankRange, WindowCall } from '../logical/logical-node.js';
import { formatWindowFrame } from '../../common/window-function.js';
import type { ReuseMarks } from './explain-reuse.js';
import { physicalInputs, type PhysicalNode } from './physical-node.js';

/** The plan as indented text; `reuse` marks the nodes the job shares (explain-reuse.ts). */
export function explainPlan(root: PhysicalNode, reuse?: ReuseMarks): string {
  const lines: string[] = [];
  const visit = (node: PhysicalNode, prefix: string, childPrefix: string): void => {
    const referenced = reuse?.reused.get(node);
    if (referenced !== undefined) {
      lines.push(`${prefix}Reused(reference_id=[${referenced}])`);
      return;
    }
    const reuseId = reuse?.first.get(node);
    lines.push(prefix + describeNode(node) + (reuseId === undefined ? '' : `(reuse_id=[${reuseId}])`));
    const inputs = physicalInputs(node);
    inputs.forEach((input, i) => {
      const last = i === inputs.length - 1;
      visit(input, childPrefix + '+- ', childPrefix + (last ? '   ' : ':  '));
    });
  };
  visit(root, '', '');
  return lines.join('\n');
}

/**
 * What a join knows about the rows of one input, as Flink's EXPLAIN says it: its join key contains
 * an upsert key of the input (one row per join key), the input has an upsert key the join key does
 * not contain, or it has none (rows are a multiset).
 */
function joinInputSpec(input: PhysicalNode, joinKeys: readonly number[]): string {
  const keys = upsertKeys(input);
  if (keys.length === 0) return 'NoUniqueKey';
  return keys.some((key) => key.every((column) => joinKeys.includes(column))) ? 'JoinKeyContainsUniqueKey' : 'HasUniqueKey';
}

function describeNode(node: PhysicalNode): string {
  const mode = `changelogMode=[${formatMode(node.mode)}]`;
  const fields = (schema: Schema): string => names(schema).join(', ');
  switch (node.kind) {
    case 'source':
      return `TableSourceScan(table=[[${node.source.qualifiedName.split('.').join(', ')}]], fields=[${fields(node.tableSchema)}], ${mode})`;
    case 'values':
      return `Values(tuples=[${node.rows.map((r) => `{ ${r.map((v, i) => literal(v, node.schema[i]!.type)).join(', ')} }`).join(', ')}], ${mode})`;
    case 'calc': {
      const input = node.input.schema;
      const select = node.projection === null ? fields(input) : node.projection.map((e, i) => aliased(renderExpr(e, input), names(node.schema)[i]!)).join(', ');
      const where = node.condition === null ? '' : `, where=[${renderExpr(node.condition, input)}]`;
      return `Calc(select=[${select}]${where}, ${mode})`;
    }
    case 'expand': {
      const input = node.input.schema;
      const output = names(node.schema);
      const projects = node.projects.map((p) => `{${p.map((e, i) => aliased(renderExpr(e, input), output[i]!)).join(', ')}}`);
      return `Expand(projects=[${projects.join(', ')}], ${mode})`;
    }
    case 'correlate': {
      const input = node.input.schema;
      const where = node.condition === null ? '' : `, condition=[${renderExpr(node.condition, node.schema)}]`;
      return `Correlate(invocation=[${renderCorrelateFunction(node.fn, input)}]${where}, select=[${fields(node.schema)}], joinType=[${node.joinType}], ${mode})`;
    }
    case 'watermark-assigner':
      return `WatermarkAssigner(rowtime=[${names(node.schema)[node.rowtimeIndex]!}], watermark=[${renderExpr(node.watermark, node.input.schema)}], ${mode})`;
    case 'exchange':
      return `Exchange(distribution=[${node.keys === null ? 'single' : `hash[${node.keys.map((k) => names(node.schema)[k]!).join(', ')}]`}], ${mode})`;
    case 'group-aggregate': {
      const input = node.input.schema;
      const keys = node.keys.map((k) => names(input)[k]!);
      const calls = node.calls.map((c) => aliased(renderAggregate(c, input), c.name));
      const groupBy = keys.length === 0 ? '' : `groupBy=[${keys.join(', ')}], `;
      return `GroupAggregate(${groupBy}select=[${[...keys, ...calls].join(', ')}], ${mode})`;
    }
    case 'window-aggregate': {
      const input = node.input.schema;
      const name = (i: number): string => (i === node.timeIndex + 1 ? 'window_start' : i === node.timeIndex + 2 ? 'window_end' : names(input)[i]!);
      const keys = node.keys.map(name);
      const calls = node.calls.map((c) => aliased(`${c.function}(${c.distinct ? 'DISTINCT ' : ''}${c.args.length === 0 ? '*' : c.args.map(name).join(', ')})${c.filter === null ? '' : ` FILTER ${name(c.filter)}`}`, c.name));
      return `WindowAggregate(window=[${describeWindow(node.window)}], time=[${names(input)[node.timeIndex]!}], groupBy=[${keys.join(', ')}], select=[${[...keys, ...calls].join(', ')}], ${mode})`;
    }
    case 'rank': {
      const input = node.input.schema;
      const partition = node.partitionKeys.map((k) => names(input)[k]!).join(', ');
      const order = node.orderKeys.map((o) => formatOrderKey(o, names(input)[o.index]!)).join(', ');
      return `Rank(rankType=[${node.rankType}], rankRange=[${rankRange(node.range)}], partitionBy=[${partition}], orderBy=[${order}], select=[${fields(node.schema)}], ${mode})`;
    }
    case 'over-aggregate': {
      const input = node.input.schema;
      const calls = node.calls.map((c) => aliased('lag' in c ? `LAG(${names(input)[c.arg]!}, ${c.offset}${c.default === null ? '' : `, ${names(input)[c.default]!}`})` : renderAggregate(c, input), c.name));
      const partition = node.partitionKeys.map((k) => names(input)[k]!).join(', ');
      return `OverAggregate(partitionBy=[${partition}], orderBy=[${names(input)[node.timeIndex]!} ASC${node.nullsLast ? ' NULLS LAST' : ''}], window=[${formatOverFrame(node.frame)}], select=[${[...fields(input).split(', '), ...calls].join(', ')}], ${mode})`;
    }
    case 'over-window': {
      const input = node.input.schema;
      const calls = node.calls.map((c) => aliased(renderWindowCall(c, input), c.name));
      const partition = node.partitionKeys.map((k) => names(input)[k]!).join(', ');
      const order = node.orderKeys.map((o) => formatOrderKey(o, names(input)[o.index]!)).join(', ');
      return `OverWindow(partitionBy=[${partition}], orderBy=[${order}], select=[${[...fields(input).split(', '), ...calls].join(', ')}], ${mode})`;
    }
    case 'join': {
      const specs = `leftInputSpec=[${joinInputSpec(node.left, node.leftKeys)}], rightInputSpec=[${joinInputSpec(node.right, node.rightKeys)}]`;
      return `Join(joinType=[${joinTypeName(node.joinType)}], where=[${joinCondition(node)}], select=[${fields(node.schema)}], ${specs}, ${mode})`;
    }
    case 'semi-join': {
      const specs = `leftInputSpec=[${joinInputSpec(node.left, node.leftKeys)}], rightInputSpec=[${joinInputSpec(node.right, node.rightKeys)}]`;
      return `Join(joinType=[${node.anti ? 'LeftAntiJoin' : 'LeftSemiJoin'}], where=[${joinCondition(node)}]${node.nullAwareKey === undefined ? '' : ', nullAware=[true]'}, select=[${fields(node.schema)}], ${specs}, ${mode})`;
    }
    case 'interval-join': {
      const { bounds } = node;
      if (bounds.windowJoin === true) {
        const ends = `${names(node.schema)[bounds.leftTimeIndex]!}, ${names(node.schema)[node.left.schema.length + bounds.rightTimeIndex]!}`;
        return `WindowJoin(joinType=[${joinTypeName(node.joinType)}], windowEnd=[${ends}], where=[${joinCondition(node)}], select=[${fields(node.schema)}], ${mode})`;
      }
      const windowBounds = `isRowTime=true, leftLowerBound=${bounds.lower}, leftUpperBound=${bounds.upper}, leftTimeIndex=${bounds.leftTimeIndex}, rightTimeIndex=${bounds.rightTimeIndex}`;
      return `IntervalJoin(joinType=[${joinTypeName(node.joinType)}], windowBounds=[${windowBounds}], where=[${joinCondition(node)}], select=[${fields(node.schema)}], ${mode})`;
    }
    case 'lookup-join': {
      const input = node.input.schema;
      const lookup = node.table.keys.map((k, i) => `${names(node.table.schema)[k]!}=${names(input)[node.inputKeys[i]!]!}`).join(', ');
      const where = node.condition === null ? '' : `, where=[${renderExpr(node.condition, node.schema)}]`;
      return `LookupJoin(table=[${node.table.qualifiedName}], joinType=[${node.joinType === 'LEFT' ? 'LeftOuterJoin' : 'InnerJoin'}], lookup=[${lookup}]${where}, select=[${fields(node.schema)}], ${mode})`;
    }
    case 'temporal-join': {
      const left = node.left.schema;
      const keys = node.leftKeys.map((l, i) => `(${names(node.schema)[l]!} = ${names(node.schema)[left.length + node.rightKeys[i]!]!})`).join(' AND ');
      const where = node.condition === null ? '' : `, where=[${renderExpr(node.condition, node.schema)}]`;
      const type = node.joinType === 'LEFT' ? 'LeftOuterJoin' : 'InnerJoin';
      return `TemporalJoin(joinType=[${type}], on=[${keys}], leftTime=[${names(node.schema)[node.leftTimeIndex]!}], rightTime=[${names(node.schema)[left.length + node.rightTimeIndex]!}]${where}, select=[${fields(node.schema)}], ${mode})`;
    }
    case 'window-table':
      return `WindowTableFunction(window=[${describeWindow(node.window, `time_col=[${names(node.input.schema)[node.timeIndex]!}]`)}], ${mode})`;
    case 'window-rank': {
      const input = node.input.schema;
      const window = describeWindow(node.window, windowColumns(input, node.windowStart, node.windowEnd));
      const partition = node.partitionKeys.filter((k) => k !== node.windowStart && k !== node.windowEnd).map((k) => names(input)[k]!).join(', ');
      const order = node.orderKeys.map((o) => formatOrderKey(o, names(input)[o.index]!)).join(', ');
      return `WindowRank(window=[${window}], rankType=[ROW_NUMBER], rankRange=[${rankRange(node.range)}], partitionBy=[${partition}], orderBy=[${order}], select=[${fields(node.schema)}], ${mode})`;
    }
    case 'window-join': {
      const { left, right, leftWindow, rightWindow } = node;
      const windows = `leftWindow=[${describeWindow(node.window, windowColumns(left.schema, leftWindow.start, leftWindow.end))}], rightWindow=[${describeWindow(node.window, windowColumns(right.schema, rightWindow.start, rightWindow.end))}]`;
      const keys = node.leftKeys.map((l, i) => `(${names(node.schema)[l]!} = ${names(node.schema)[left.schema.length + node.rightKeys[i]!]!})`);
      return `WindowJoin(${windows}, joinType=[${joinTypeName(node.joinType)}], where=[${keys.join(' AND ')}], select=[${fields(node.schema)}], ${mode})`;
    }
    case 'dynamic-filter': {
      const columns = names([...node.input.schema, ...node.bound.schema]);
      const column = columns[node.inputIndex]!;
      return `DynamicFilter(where=[(${column} ${node.comparison} ${columns[node.input.schema.length]!})], index=[${column}], select=[${fields(node.schema)}], ${mode})`;
    }
    case 'union':
      return `Union(all=[true], union=[${fields(node.schema)}], ${mode})`;
    case 'changelog-normalize':
      return `ChangelogNormalize(key=[${node.keys.map((k) => names(node.schema)[k]!).join(', ')}], ${mode})`;
    case 'set-operation': {
      const name = node.op === 'INTERSECT' ? 'Intersect' : 'Minus';
      return `${name}(all=[${node.all}], ${name.toLowerCase()}=[${fields(node.schema)}], ${mode})`;
    }
    case 'sink': {
      const materialize = node.materialize === undefined ? '' : `, upsertMaterialize=[true], conflictStrategy=[${node.materialize}]`;
      return `Sink(table=[${node.target.qualifiedName}], fields=[${fields(node.input.schema)}]${materialize}, ${mode})`;
    }
  }
}

/** What a Correlate calls, over its input's columns. */
function renderCorrelateFunction(fn: CorrelateFunction, input: Schema): string {
  switch (fn.kind) {
    case 'unnest':
      return `UNNEST(${renderExpr(fn.expr, input)})${fn.withOrdinality ? ' WITH ORDINALITY' : ''}`;
    case 'table-function':
      return `${fn.name}(${fn.args.map((a) => renderExpr(a, input)).join(', ')})`;
  }
}

/** A rank range as Flink prints it. */
function rankRange(range: RankRange): string {
  return `rankStart=${range.start}, rankEnd=${range.end}`;
}

/** The key equalities of a join, then the rest of its match condition (`true` for a cross join, as Flink prints it). */
function joinCondition(node: Extract<PhysicalNode, { kind: 'join' | 'semi-join' | 'interval-join' }>): string {
  // A semi join outputs the left columns only; its condition reads both inputs'.
  const both = node.kind === 'semi-join' ? [...node.left.schema, ...node.right.schema] : node.schema;
  const output = names(both);
  const width = node.left.schema.length;
  const nullSafe = node.kind === 'join' || node.kind === 'semi-join' ? node.nullSafe : undefined;
  const keys = node.leftKeys.map((l, i) => `(${output[l]!} ${nullSafe?.[i] === true ? 'IS NOT DISTINCT FROM' : '='} ${output[width + node.rightKeys[i]!]!})`);
  const condition = node.condition === null ? [] : [renderExpr(node.condition, both)];
  if (node.kind === 'semi-join' && node.nullAwareKey !== undefined) condition.push(`((${output[node.nullAwareKey[0]]!} = ${output[width + node.nullAwareKey[1]]!}) IS NOT FALSE)`);
  const all = [...keys, ...condition];
  return all.length === 0 ? 'true' : all.join(' AND ');
}

/** A window as Flink prints it, its parameters preceded by `columns` (e.g. `time_col=[ts]`) when given. */
function describeWindow(window: WindowSpec, columns?: string): string {
  const seconds = (ms: number): string => `${ms / 1000} s`;
  const at = columns === undefined ? '' : `${columns}, `;
  const offset = window.kind !== 'SESSION' && window.offset !== undefined ? `, offset=[${seconds(window.offset)}]` : '';
  switch (window.kind) {
    case 'TUMBLE':
      return `TUMBLE(${at}size=[${seconds(window.size)}]${offset})`;
    case 'HOP':
      return `HOP(${at}slide=[${seconds(window.slide)}], size=[${seconds(window.size)}]${offset})`;
    case 'CUMULATE':
      return `CUMULATE(${at}step=[${seconds(window.step)}], size=[${seconds(window.size)}]${offset})`;
    case 'SESSION':
      return `SESSION(${at}gap=[${seconds(window.gap)}])`;
  }
}

function windowColumns(schema: Schema, start: number, end: number): string {
  return `win_start=[${names(schema)[start]!}], win_end=[${names(schema)[end]!}]`;
}

function aliased(text: string, name: string): string {
  return text === name ? text : `${text} AS ${name}`;
}

/** A window function call as SQL writes it, with its frame where the value depends on one: `LAG(v, 1)`, `SUM(v) OVER (ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)`. */
function renderWindowCall(call: WindowCall, input: Schema): string {
  const column = (i: number): string => names(input)[i]!;
  switch (call.kind) {
    case 'ranking':
      return `${call.function}()`;
    case 'ntile':
      return `NTILE(${call.buckets})`;
    case 'offset':
      return `${call.function}(${column(call.arg)}, ${call.offset}${call.default === null ? '' : `, ${column(call.default)}`})`;
    case 'frame-value':
      return `${call.function}(${column(call.arg)}) OVER (${formatWindowFrame(call.frame)})`;
    case 'aggregate':
      return `${renderAggregate(call.aggregate, input)} OVER (${formatWindowFrame(call.frame)})`;
    default: {
      const unknown: never = call;
      throw new Error(`unknown window call ${JSON.stringify(unknown)}`);
    }
  }
}

function renderAggregate(call: AggregateCall, input: Schema): string {
  const args = call.args.length === 0 ? '*' : call.args.map((a) => names(input)[a]!).join(', ');
  const filter = call.filter === null ? '' : ` FILTER ${names(input)[call.filter]!}`;
  return `${call.function}(${call.distinct ? 'DISTINCT ' : ''}${args})${filter}`;
}

const INFIX = new Set(['AND', 'OR', '=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '||', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM', 'LIKE']);
const POSTFIX = new Set(['IS NULL', 'IS NOT NULL', 'IS TRUE', 'IS FALSE', 'IS NOT TRUE', 'IS NOT FALSE']);

/** An expression as readable SQL over the input's column names. */
export function renderExpr(expr: ScalarExpr, input: Schema): string {
  switch (expr.kind) {
    case 'input-ref':
      return names(input)[expr.index] ?? `$${expr.index}`;
    case 'literal':
      return literal(expr.value, expr.type);
    case 'field': {
      const type = expr.expr.type;
      return `${renderExpr(expr.expr, input)}.${type.kind === 'ROW' ? type.fields[expr.index]!.name : expr.index}`;
    }
    case 'cast':
      return `${expr.try ? 'TRY_CAST' : 'CAST'}(${renderExpr(expr.expr, input)} AS ${formatType(expr.type)})`;
    case 'case':
      return `CASE ${expr.whens.map((w) => `WHEN ${renderExpr(w.when, input)} THEN ${renderExpr(w.then, input)}`).join(' ')} ELSE ${renderExpr(expr.else, input)} END`;
    case 'call': {
      const args = expr.args.map((a) => renderExpr(a, input));
      if (INFIX.has(expr.name) && args.length === 2) return `(${args[0]} ${expr.name} ${args[1]})`;
      if (POSTFIX.has(expr.name)) return `(${args[0]} ${expr.name})`;
      if (expr.name === 'NOT') return `NOT(${args[0]})`;
      if (expr.name === 'NEGATE') return `-(${args[0]})`;
      if (expr.name === 'IN') return `(${args[0]} IN (${args.slice(1).join(', ')}))`;
      return `${expr.name}(${args.join(', ')})`;
    }
  }
}

const DISPLAY_NAMES = new WeakMap<Schema, readonly string[]>();

/**
 * The column names EXPLAIN prints for a schema: a name that an earlier column already has gets the
 * first number that makes it unique appended (Calcite's uniquify, as Flink names a join's output:
 * `price`, `price0`), so that a condition over both inputs of a join reads `(price > price0)`.
 */
function names(schema: Schema): readonly string[] {
  let unique = DISPLAY_NAMES.get(schema);
  if (unique !== undefined) return unique;
  const used = new Set<string>();
  unique = schema.map(({ name }) => {
    let candidate = name;
    for (let n = 0; used.has(candidate); n++) candidate = `${name}${n}`;
    used.add(candidate);
    return candidate;
  });
  DISPLAY_NAMES.set(schema, unique);
  return unique;
}

function literal(value: unknown, type: ScalarExpr['type']): string {
  if (value === null) return 'null';
  const text = formatValue(value, type);
  return typeof value === 'string' ? `'${text.replace(/'/g, "''")}'` : text;
}
