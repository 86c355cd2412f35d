/**
 * The logical plan: immutable, `kind`-tagged relational nodes produced by the binder and
 * rewritten by the optimizer. Every node knows its output schema. Nodes never reference the
 * runtime; connector details are carried as data.
 *
 * Nodes are built only through the `create` factory of their kind (`LogicalFilter.create(...)`),
 * which derives the schema from the inputs and the node's own fields, so that no rule or binder
 * can build a node whose recorded schema disagrees with what it computes. Only scans, VALUES and
 * sinks take their columns as data (a table's columns). test/architecture/logical-node-factories
 * fails on a `kind: '<logical kind>'` object literal outside this file.
 */
import type { ConflictStrategy } from '../../common/conflict-strategy.js';
import { isNanoTimestamp } from '../../common/epoch-nanos.js';
import type { IntervalBounds, JoinType } from '../../common/join-type.js';
import type { OrderKey } from '../../common/order-key.js';
import type { OverFrame } from '../../common/over-frame.js';
import { WeirError } from '../../common/errors.js';
import type { Field, Schema } from '../../common/schema.js';
import { SqlTypes, timeAttributeOf, withNullable, withoutTimeAttribute, type SqlType } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import type { WindowFunction } from '../../common/window-function.js';
import type { CorrelateFunction } from '../../expr/correlate-function.js';
import { Exprs, type ScalarExpr } from '../../expr/scalar-expr.js';

/** Any logical node. */
export type LogicalNode =
  | LogicalScan
  | LogicalValues
  | LogicalProject
  | LogicalFilter
  | LogicalAggregate
  | LogicalUnion
  | LogicalWatermarkAssigner
  | LogicalWindowTvf
  | LogicalJoin
  | LogicalRank
  | LogicalOverAggregate
  | LogicalOverWindow
  | LogicalSink
  | LogicalLookupJoin
  | LogicalTemporalJoin
  | LogicalSetOperation
  | LogicalDynamicFilter
  | LogicalExpand
  | LogicalCorrelate
  | LogicalSemiJoin
  | LogicalApply;

/** The discriminant of {@link LogicalNode}. */
export type LogicalKind = LogicalNode['kind'];

/** What the planner knows about a scanned table's source. */
export interface ScanSource {
  /** Qualified name as shown in plans: `default_catalog.default_database.t`. */
  readonly qualifiedName: string;
  readonly name: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** Whether the connector's changelog has updates and deletes. */
  readonly changelog: 'insert-only' | 'all' | 'upsert';
  readonly bounded: boolean;
  /** True when the source can replay from an offset kept in a checkpoint. */
  readonly replayable: boolean;
  readonly primaryKey: readonly string[];
}

/** Reads the physical columns of a table. */
export interface LogicalScan {
  readonly kind: 'scan';
  readonly source: ScanSource;
  readonly schema: Schema;
}

/** A bounded inline table; every value is a constant of the schema's type. */
export interface LogicalValues {
  readonly kind: 'values';
  readonly rows: readonly (readonly unknown[])[];
  readonly schema: Schema;
}

/** Computes new columns from each input row. */
export interface LogicalProject {
  readonly kind: 'project';
  readonly input: LogicalNode;
  readonly exprs: readonly ScalarExpr[];
  readonly schema: Schema;
}

/** Keeps the rows for which the condition is TRUE. */
export interface LogicalFilter {
  readonly kind: 'filter';
  readonly input: LogicalNode;
  readonly condition: ScalarExpr;
  readonly schema: Schema;
}

/** One aggregate call over input columns. */
export interface AggregateCall {
  readonly function: string;
  readonly args: readonly number[];
  readonly argTypes: readonly SqlType[];
  readonly distinct: boolean;
  /** A BOOLEAN input column restricting the rows aggregated (`FILTER (WHERE ...)`). */
  readonly filter: number | null;
  readonly type: SqlType;
  /** The output column's name. */
  readonly name: string;
}

/** GROUP BY `keys` (input column indexes) computing `calls`; output = keys then calls. */
export interface LogicalAggregate {
  readonly kind: 'aggregate';
  readonly input: LogicalNode;
  readonly keys: readonly number[];
  readonly calls: readonly AggregateCall[];
  readonly schema: Schema;
}

/**
 * Flink's Expand: every input row once per projection, each over the input's columns and of the
 * node's schema, with the input row's kind (a stateless function of the row, so correct under
 * retraction). GROUPING SETS, ROLLUP and CUBE bind to it: one projection per grouping set, the
 * columns outside the set NULL, and column `idIndex` (`$e`) holding the set's number.
 */
export interface LogicalExpand {
  readonly kind: 'expand';
  readonly input: LogicalNode;
  readonly projects: readonly (readonly ScalarExpr[])[];
  /** The column that tells the projections apart (distinct constants), when there is one. */
  readonly idIndex: number;
  readonly schema: Schema;
}

/**
 * `input CROSS JOIN UNNEST(...)`, `input [LEFT] JOIN LATERAL TABLE(f(...)) ON ...` (Flink's
 * Correlate): each input row followed by each row `fn` gives for it (see CorrelateFunction) that
 * satisfies `condition` (over the input's columns then the function's; null for none); `LEFT`
 * keeps an input row without such rows once, the function's columns NULL. A function of each row,
 * so it holds no state and is correct under retraction.
 */
export interface LogicalCorrelate {
  readonly kind: 'correlate';
  readonly input: LogicalNode;
  readonly fn: CorrelateFunction;
  readonly joinType: 'INNER' | 'LEFT';
  readonly condition: ScalarExpr | null;
  readonly schema: Schema;
}

/** UNION ALL of inputs that share a schema. */
export interface LogicalUnion {
  readonly kind: 'union';
  readonly inputs: readonly LogicalNode[];
  readonly schema: Schema;
}

/** The set operations that keep multiplicities per row: `INTERSECT [ALL]` and `EXCEPT [ALL]` (UNION binds to a union and an aggregate). */
export type SetOperator = 'INTERSECT' | 'EXCEPT';

/**
 * `left INTERSECT [ALL] right` or `left EXCEPT [ALL] right` of two inputs that share a schema
 * (the binder casts both to it, as for UNION ALL). Rows are equal when every column is, two NULLs
 * included. A row that occurs l times in `left` and r times in `right` occurs min(l, r) times in
 * INTERSECT ALL, max(l - r, 0) times in EXCEPT ALL, and once or never in INTERSECT (l > 0 and
 * r > 0) and EXCEPT (l > 0 and r = 0). No column is a time attribute.
 */
export interface LogicalSetOperation {
  readonly kind: 'set-operation';
  readonly op: SetOperator;
  readonly all: boolean;
  readonly left: LogicalNode;
  readonly right: LogicalNode;
  readonly schema: Schema;
}

/** Declares the event-time attribute and watermark of a table: `WATERMARK FOR column AS expr`. */
export interface LogicalWatermarkAssigner {
  readonly kind: 'watermark-assigner';
  readonly input: LogicalNode;
  readonly rowtimeIndex: number;
  readonly watermark: ScalarExpr;
  readonly schema: Schema;
}

/**
 * `TABLE(TUMBLE | HOP | CUMULATE | SESSION(TABLE t, DESCRIPTOR(ts), ...))`: the input's columns
 * followed by `window_start`, `window_end` and `window_time`, one row per window a row falls into.
 * The legacy group windows (`GROUP BY SESSION(ts, gap)`) bind to the same node. When the time
 * column is no time attribute (TUMBLE, HOP, CUMULATE over a plain timestamp), the windows are a
 * function of each row: no window operator applies, the node runs as a stateless expansion of
 * any changelog (see {@link isRowFunctionWindow}).
 */
export interface LogicalWindowTvf {
  readonly kind: 'window-tvf';
  readonly input: LogicalNode;
  /** The input column holding the event time (a rowtime attribute). */
  readonly timeIndex: number;
  readonly window: WindowSpec;
  /** SESSION only: the input columns whose rows form sessions separately (`PARTITION BY`); empty otherwise. */
  readonly partitionKeys: readonly number[];
  readonly schema: Schema;
}

/**
 * A join: rows of `left` and `right` whose key columns are equal (SQL equality: a NULL key
 * matches nothing, unless the key is `nullSafe`) and that satisfy `condition`; the output is the
 * left columns followed by the right ones. An inner join's other ON conditions are a filter above
 * the join (`condition` null); an outer join's are `condition`, part of what a match is, and the
 * columns of a NULL-padded input are nullable. With `interval`, an interval join over two
 * insert-only inputs. Without keys (a cross join, or a condition with no equality between the
 * inputs), a nested loop: every row is matched against every row of the other input.
 */
export interface LogicalJoin {
  readonly kind: 'join';
  readonly joinType: JoinType;
  readonly left: LogicalNode;
  readonly right: LogicalNode;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  /** Per key: true for `IS NOT DISTINCT FROM` (NULL matches NULL); absent when every key is a SQL equality. */
  readonly nullSafe?: readonly boolean[];
  /** Over the left columns followed by the right ones; null when there is none. */
  readonly condition: ScalarExpr | null;
  /** The time bounds of an interval join (both time columns are rowtime attributes). */
  readonly interval?: IntervalBounds;
  readonly schema: Schema;
}

/**
 * `left LEFT SEMI JOIN right` (or ANTI): the rows of `left` for which at least one (SEMI) or no
 * (ANTI) row of `right` matches: equal key columns (SQL equality: a NULL key matches nothing, unless
 * the key is `nullSafe`) and `condition` TRUE. The output is the left columns, each left row with
 * its own multiplicity (never multiplied by its matches). What EXISTS / IN / ANY (SEMI) and
 * NOT EXISTS / NOT IN / ALL (ANTI) subqueries become (subquery-to-semi-join-rule.ts).
 */
export interface LogicalSemiJoin {
  readonly kind: 'semi-join';
  readonly anti: boolean;
  readonly left: LogicalNode;
  readonly right: LogicalNode;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  /** Per key: true for `IS NOT DISTINCT FROM` (NULL matches NULL); absent when every key is a SQL equality. */
  readonly nullSafe?: readonly boolean[];
  /** The rest of what a match is, over the left columns followed by the right ones; null when there is none. */
  readonly condition: ScalarExpr | null;
  /**
   * ANTI only, NOT IN's null-aware comparison (Flink's null-aware anti join): left column and right
   * column that match when they are equal or either is NULL (`(l = r) IS NOT FALSE`), on top of the
   * keys (the correlation) and with no other condition.
   */
  readonly nullAwareKey?: readonly [number, number];
  readonly schema: Schema;
}

/** How an {@link LogicalApply} uses its subquery. */
export type ApplyType = 'SEMI' | 'ANTI' | 'SCALAR';

/**
 * A subquery the binder found in an expression, not yet decorrelated (the decorrelation rules turn
 * every one into joins; none reaches the physical plan). `subquery` is uncorrelated: the binder
 * pulled the conjuncts of its WHERE that read outer columns into `condition`, over the input's
 * columns followed by the subquery's (whose output carries the inner columns those conjuncts read).
 * - SEMI / ANTI: the input rows for which some / no subquery row satisfies `condition` (which also
 *   holds the comparison of IN, ANY and ALL); the output is the input's columns.
 * - SCALAR: the input's columns followed by the value of subquery column `valueIndex` of the one
 *   subquery row satisfying `condition`, NULL when there is none (or `emptyValue`, the value an
 *   aggregate subquery has over no rows, COUNT's 0). The subquery has at most one row per value of
 *   the correlation columns (the binder wraps one that may have more in a SINGLE_VALUE aggregate,
 *   which fails at runtime naming the subquery).
 */
export interface LogicalApply {
  readonly kind: 'apply';
  readonly applyType: ApplyType;
  readonly input: LogicalNode;
  readonly subquery: LogicalNode;
  readonly condition: ScalarExpr | null;
  /** SCALAR: the subquery column whose value is appended. */
  readonly valueIndex: number;
  /** SCALAR: the value when no subquery row matches (a constant expression); null for NULL. */
  readonly emptyValue: ScalarExpr | null;
  /** The subquery as written, for plans and errors. */
  readonly sql: string;
  readonly schema: Schema;
}

/** How a dynamic filter compares a column of its input with its bound: `column <op> bound`. */
export type DynamicFilterComparison = '<' | '<=' | '>' | '>=';

/**
 * RisingWave's DynamicFilter: the rows of `input` whose column `inputIndex` compares
 * (`comparison`) with the value of column 0 of the one row of `bound`, which has at most one row
 * (a global aggregate); no row passes while `bound` has no row or its value is NULL. The output is
 * the input's columns. It replaces an inner join with the one-row side whose condition is that
 * comparison and whose other columns nobody reads (join-to-dynamic-filter.ts).
 */
export interface LogicalDynamicFilter {
  readonly kind: 'dynamic-filter';
  readonly input: LogicalNode;
  readonly bound: LogicalNode;
  readonly inputIndex: number;
  readonly comparison: DynamicFilterComparison;
  readonly schema: Schema;
}

/** How a rank numbers rows: ROW_NUMBER counts them; RANK and DENSE_RANK give ties one number (RANK then skips). */
export type RankType = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK';

/** The table side of a lookup join: a connector's table read by the values of its columns `keys`. */
export interface LookupTable {
  readonly qualifiedName: string;
  readonly name: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** The table's physical columns. */
  readonly schema: Schema;
  readonly keys: readonly number[];
}

/**
 * `input [LEFT] JOIN t FOR SYSTEM_TIME AS OF input.proctime ON t.k = input.x [AND ...]`: each input
 * row joined with the rows of `table` whose `keys` equal the input's columns `inputKeys` when the
 * row is processed; output = the input's columns then the table's. `condition` (over the output
 * row) filters matches; LEFT keeps unmatched input rows with NULLs.
 */
export interface LogicalLookupJoin {
  readonly kind: 'lookup-join';
  readonly input: LogicalNode;
  readonly table: LookupTable;
  readonly joinType: 'INNER' | 'LEFT';
  readonly inputKeys: readonly number[];
  readonly condition: ScalarExpr | null;
  readonly schema: Schema;
}

/**
 * Event-time temporal join, `left [LEFT] JOIN versioned FOR SYSTEM_TIME AS OF left.rowtime ON ...`:
 * each left row joined with the version of the right row of its key (the right side's unique key)
 * that was valid at the left row's event time (column `leftTimeIndex`; versions are ordered by the
 * right side's rowtime, column `rightTimeIndex`). `condition` (over left ++ right) filters that
 * version; LEFT keeps left rows without one, with NULLs.
 */
export interface LogicalTemporalJoin {
  readonly kind: 'temporal-join';
  readonly left: LogicalNode;
  readonly right: LogicalNode;
  readonly joinType: 'INNER' | 'LEFT';
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftTimeIndex: number;
  readonly rightTimeIndex: number;
  readonly condition: ScalarExpr | null;
  readonly schema: Schema;
}

/** The numbers a Top-N keeps, from `start` to `end` inclusive (Flink's ConstantRankRange); empty when `start > end`. */
export interface RankRange {
  readonly start: number;
  readonly end: number;
}

/**
 * `ROW_NUMBER() | RANK() | DENSE_RANK() OVER (PARTITION BY ... ORDER BY ...)`: the rows numbered
 * within `range`, each followed by its number in its partition (BIGINT, from 1) when
 * `outputNumber`, else the input's columns alone. Runs only as Top-N (Flink's rule): the optimizer
 * moves a filter bounding the number (`rn <= N`, `rn BETWEEN 2 AND 5`) into `range`, and rows
 * beyond its end are not kept; `ORDER BY ... LIMIT n OFFSET m` binds to the range m+1 .. m+n.
 */
export interface LogicalRank {
  readonly kind: 'rank';
  readonly rankType: RankType;
  readonly input: LogicalNode;
  readonly partitionKeys: readonly number[];
  readonly orderKeys: readonly OrderKey[];
  /** The numbers kept; undefined until a filter bounds them. */
  readonly range: RankRange | undefined;
  /** Whether the number is the last output column (Flink's outputRankNumber). */
  readonly outputNumber: boolean;
  readonly schema: Schema;
}

/**
 * `LAG(x [, offset [, default]])` among OVER aggregates (Flink's streaming LAG, which ignores the
 * frame): column `arg` of the row `offset` rows before the current one in its partition's time
 * order (peers in arrival order), else column `default` of the current row, else NULL.
 */
export interface OverLagCall {
  readonly function: 'LAG';
  readonly lag: true;
  readonly arg: number;
  readonly offset: number;
  readonly default: number | null;
  readonly type: SqlType;
  readonly name: string;
}

/** A call of an OVER aggregate: an aggregate over the frame, or a LAG. */
export type OverCall = AggregateCall | OverLagCall;

/**
 * `agg(...) OVER (PARTITION BY ... ORDER BY time <frame>)` calls sharing one window: the input's
 * columns followed by one column per call, each row's aggregate over its frame within its
 * partition ordered by the time column `timeIndex` (ascending, NULL times first unless
 * `nullsLast`; ties in arrival order). A query with several different windows chains one node per
 * window, each reading the one before.
 */
export interface LogicalOverAggregate {
  readonly kind: 'over-aggregate';
  readonly input: LogicalNode;
  readonly partitionKeys: readonly number[];
  readonly timeIndex: number;
  /** `ORDER BY time NULLS LAST` (Flink's default, and false here, puts NULLs first when ascending). */
  readonly nullsLast: boolean;
  readonly frame: OverFrame;
  readonly calls: readonly OverCall[];
  readonly schema: Schema;
}

/** One call of an over-window node: what it computes (common/window-function.ts), and its output column. */
export type WindowCall = WindowFunction<AggregateCall> & { readonly name: string; readonly type: SqlType };

/**
 * Window functions sharing one PARTITION BY and ORDER BY (any columns, peers in arrival order):
 * the input's columns followed by one column per call, each row's value within its partition as
 * PostgreSQL defines it, over any input (the general OVER operator). A query with several
 * different windows chains one node per window, each reading the one before.
 */
export interface LogicalOverWindow {
  readonly kind: 'over-window';
  readonly input: LogicalNode;
  readonly partitionKeys: readonly number[];
  readonly orderKeys: readonly OrderKey[];
  readonly calls: readonly WindowCall[];
  readonly schema: Schema;
}

/** What the planner knows about a sink table. */
export interface SinkTarget {
  readonly qualifiedName: string;
  readonly name: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** Which changelogs the connector accepts. */
  readonly accepts: 'insert-only' | 'all' | 'upsert';
  readonly primaryKey: readonly string[];
  /** The table's `PARTITIONED BY` columns, when it has any. */
  readonly partitionedBy?: readonly string[];
  /** `INSERT ... ON CONFLICT DO ...`: how rows of the query sharing a primary key are resolved (see infer-changelog.ts). */
  readonly conflictStrategy?: ConflictStrategy;
  /**
   * The table holds a multiset without a key (a materialized view of a query with no unique key):
   * every row is inserted, and a retraction removes one row equal to it. Needs every retraction
   * with its whole row (update-before included).
   */
  readonly multiset?: true;
}

/** Writes the input into a table; the input's schema equals the table's physical columns. */
export interface LogicalSink {
  readonly kind: 'sink';
  readonly input: LogicalNode;
  readonly target: SinkTarget;
  readonly schema: Schema;
}

/** True when the window TVF's time column is no time attribute: its windows are a plain function of each row. */
export function isRowFunctionWindow(node: LogicalWindowTvf): boolean {
  return timeAttributeOf(node.input.schema[node.timeIndex]!.type) === undefined;
}

/** The inputs of a node, in order. */
export function inputsOf(node: LogicalNode): readonly LogicalNode[] {
  switch (node.kind) {
    case 'scan':
    case 'values':
      return [];
    case 'union':
      return node.inputs;
    case 'join':
    case 'temporal-join':
    case 'set-operation':
      return [node.left, node.right];
    case 'dynamic-filter':
      return [node.input, node.bound];
    case 'semi-join':
      return [node.left, node.right];
    case 'apply':
      return [node.input, node.subquery];
    default:
      return [node.input];
  }
}

/** The same node with new inputs (same count and order as {@link inputsOf}). */
export function withInputs(node: LogicalNode, inputs: readonly LogicalNode[]): LogicalNode {
  switch (node.kind) {
    case 'scan':
    case 'values':
      return node;
    case 'union':
      return { ...node, inputs };
    case 'join':
    case 'temporal-join':
    case 'set-operation':
      return { ...node, left: inputs[0]!, right: inputs[1]! };
    case 'dynamic-filter':
      return { ...node, input: inputs[0]!, bound: inputs[1]! };
    case 'semi-join':
      return { ...node, left: inputs[0]!, right: inputs[1]! };
    case 'apply':
      return { ...node, input: inputs[0]!, subquery: inputs[1]! };
    default:
      return { ...node, input: inputs[0]! };
  }
}

/** Arguments of a factory: the node's fields without `kind` and `schema`. */
type Fields<N extends LogicalNode> = Omit<N, 'kind' | 'schema'>;

/** The factory of {@link LogicalScan}: the schema is the table's physical columns. */
export const LogicalScan = {
  create(args: { readonly source: ScanSource; readonly columns: Schema }): LogicalScan {
    return { kind: 'scan', source: args.source, schema: args.columns };
  },
};

/** The factory of {@link LogicalValues}: the schema is the VALUES' column names and types. */
export const LogicalValues = {
  create(args: { readonly rows: readonly (readonly unknown[])[]; readonly columns: Schema }): LogicalValues {
    return { kind: 'values', rows: args.rows, schema: args.columns };
  },
};

/** The factory of {@link LogicalProject}: column i is named `names[i]` and has the type of `exprs[i]`. */
export const LogicalProject = {
  create(args: { readonly input: LogicalNode; readonly exprs: readonly ScalarExpr[]; readonly names: readonly string[] }): LogicalProject {
    if (args.names.length !== args.exprs.length) throw new WeirError('INTERNAL_ERROR', `a projection of ${args.exprs.length} expressions got ${args.names.length} names`);
    const schema = args.exprs.map((e, i): Field => ({ name: args.names[i]!, type: e.type }));
    return { kind: 'project', input: args.input, exprs: args.exprs, schema };
  },
};

/** The factory of {@link LogicalFilter}: the input's schema. */
export const LogicalFilter = {
  create(args: Fields<LogicalFilter>): LogicalFilter {
    return { kind: 'filter', input: args.input, condition: args.condition, schema: args.input.schema };
  },
};

/** The factory of {@link LogicalAggregate}: the key columns of the input (as they are), then one column per call. */
export const LogicalAggregate = {
  create(args: Fields<LogicalAggregate>): LogicalAggregate {
    const schema: Field[] = [...args.keys.map((k) => args.input.schema[k]!), ...args.calls.map((c) => ({ name: c.name, type: c.type }))];
    return { kind: 'aggregate', input: args.input, keys: args.keys, calls: args.calls, schema };
  },
};

/**
 * The factory of {@link LogicalExpand}: column j is named `names[j]` and has the type of the
 * projections' expression j, nullable when any projection's is (a set that nulls the column out).
 */
export const LogicalExpand = {
  create(args: Fields<LogicalExpand> & { readonly names: readonly string[] }): LogicalExpand {
    const first = args.projects[0];
    if (first === undefined || args.projects.some((p) => p.length !== args.names.length)) {
      throw new WeirError('INTERNAL_ERROR', `an expand of ${args.projects.length} projections does not have ${args.names.length} expressions in each`);
    }
    const schema = first.map((e, j): Field => ({ name: args.names[j]!, type: withNullable(e.type, args.projects.some((p) => p[j]!.type.nullable)) }));
    return { kind: 'expand', input: args.input, projects: args.projects, idIndex: args.idIndex, schema };
  },
};

/** The factory of {@link LogicalCorrelate}: the input's columns, then the function's `columns` (as named and typed by the binder). */
export const LogicalCorrelate = {
  create(args: Fields<LogicalCorrelate> & { readonly columns: Schema }): LogicalCorrelate {
    return { kind: 'correlate', input: args.input, fn: args.fn, joinType: args.joinType, condition: args.condition, schema: [...args.input.schema, ...args.columns] };
  },
};

/** The factory of {@link LogicalOverWindow}: the input's columns, then one column per call (its name and type). */
export const LogicalOverWindow = {
  create(args: Fields<LogicalOverWindow>): LogicalOverWindow {
    const schema: Field[] = [...args.input.schema, ...args.calls.map((c) => ({ name: c.name, type: c.type }))];
    return { kind: 'over-window', input: args.input, partitionKeys: args.partitionKeys, orderKeys: args.orderKeys, calls: args.calls, schema };
  },
};

/**
 * The schema with its time attributes materialized (plain TIMESTAMPs), as Flink's
 * RelTimeIndicatorConverter leaves the output of a regular join: a row may be emitted (or
 * retracted) when the other side changes, long after the watermark passed its time.
 */
export function materializedSchema(schema: Schema): Schema {
  return schema.some((f) => timeAttributeOf(f.type) !== undefined) ? schema.map((f) => ({ name: f.name, type: withoutTimeAttribute(f.type) })) : schema;
}

/**
 * `input` with its time attributes materialized: a projection of its columns as plain TIMESTAMPs
 * (the input itself when it has none). What goes into a regular join of a subquery is materialized
 * first, so that the expressions bound over it read plain TIMESTAMPs.
 */
export function materializeTimeAttributes(input: LogicalNode): LogicalNode {
  const schema = materializedSchema(input.schema);
  if (schema === input.schema) return input;
  return LogicalProject.create({ input, exprs: schema.map((f, i) => Exprs.inputRef(i, f.type)), names: schema.map((f) => f.name) });
}

/** The factory of {@link LogicalSemiJoin}: the left input's schema, its time attributes materialized (a regular join, as in Flink). */
export const LogicalSemiJoin = {
  create(args: Fields<LogicalSemiJoin>): LogicalSemiJoin {
    return {
      kind: 'semi-join',
      anti: args.anti,
      left: args.left,
      right: args.right,
      leftKeys: args.leftKeys,
      rightKeys: args.rightKeys,
      ...(args.nullSafe === undefined ? {} : { nullSafe: args.nullSafe }),
      condition: args.condition,
      ...(args.nullAwareKey === undefined ? {} : { nullAwareKey: args.nullAwareKey }),
      schema: materializedSchema(args.left.schema),
    };
  },
};

/**
 * The factory of {@link LogicalApply}: the input's schema; SCALAR appends the value as column
 * `$scalar<n>` (n its position) of type `valueType`. The apply becomes a regular join, so its
 * output has no time attributes (Flink materializes them: see {@link materializedSchema}).
 */
export const LogicalApply = {
  create(args: Fields<LogicalApply> & { readonly valueType?: SqlType }): LogicalApply {
    const { valueType, ...fields } = args;
    if (args.applyType === 'SCALAR' && valueType === undefined) throw new WeirError('INTERNAL_ERROR', 'a scalar subquery apply needs the type of its value');
    const width = args.input.schema.length;
    const input = materializedSchema(args.input.schema);
    const schema = args.applyType === 'SCALAR' ? [...input, { name: `$scalar${width}`, type: withoutTimeAttribute(valueType!) }] : input;
    return { kind: 'apply', ...fields, schema };
  },
};

/**
 * The common schema of inputs of a UNION ALL or set operation: the first input's names; per
 * column the first input's type, nullable when any input's is, a time attribute only when every
 * input's column is the same one.
 */
function unifiedSchema(inputs: readonly LogicalNode[], keepTimeAttributes: boolean): Field[] {
  return inputs[0]!.schema.map((field, column) => {
    const types = inputs.map((i) => i.schema[column]!.type);
    const common = withNullable(withoutTimeAttribute(field.type), types.some((t) => t.nullable));
    const attributes = new Set(types.map(timeAttributeOf));
    const [attribute] = attributes;
    const keeps = keepTimeAttributes && attributes.size === 1 && attribute !== undefined && (common.kind === 'TIMESTAMP' || common.kind === 'TIMESTAMP_LTZ');
    return { name: field.name, type: keeps ? ({ ...common, timeAttribute: attribute } as SqlType) : common };
  });
}

/** The factory of {@link LogicalUnion}: see {@link unifiedSchema} (the binder casts the inputs to one type per column first). */
export const LogicalUnion = {
  create(args: Fields<LogicalUnion>): LogicalUnion {
    return { kind: 'union', inputs: args.inputs, schema: unifiedSchema(args.inputs, true) };
  },
};

/** The factory of {@link LogicalSetOperation}: the unified schema of both inputs, without time attributes. */
export const LogicalSetOperation = {
  create(args: Fields<LogicalSetOperation>): LogicalSetOperation {
    return { kind: 'set-operation', op: args.op, all: args.all, left: args.left, right: args.right, schema: unifiedSchema([args.left, args.right], false) };
  },
};

/** The factory of {@link LogicalWatermarkAssigner}: the input's schema with column `rowtimeIndex` an event-time attribute. */
export const LogicalWatermarkAssigner = {
  create(args: Fields<LogicalWatermarkAssigner>): LogicalWatermarkAssigner {
    const schema = args.input.schema.map((f, i) => (i === args.rowtimeIndex && (f.type.kind === 'TIMESTAMP' || f.type.kind === 'TIMESTAMP_LTZ') ? { name: f.name, type: { ...f.type, timeAttribute: 'rowtime' as const } } : f));
    return { kind: 'watermark-assigner', input: args.input, rowtimeIndex: args.rowtimeIndex, watermark: args.watermark, schema };
  },
};

/**
 * The type of a window TVF's `window_time` over a time column of type `time`: a TIMESTAMP NOT
 * NULL, or a TIMESTAMP_LTZ over a TIMESTAMP_LTZ column (the window's last instant), of
 * {@link windowTimePrecision}; a time attribute when the time column is one.
 */
export function windowTimeType(time: SqlType, attribute = timeAttributeOf(time)): SqlType {
  const kind = time.kind === 'TIMESTAMP_LTZ' ? 'TIMESTAMP_LTZ' : 'TIMESTAMP';
  const precision = windowTimePrecision(time);
  return attribute === undefined ? { kind, nullable: false, precision } : { kind, nullable: false, precision, timeAttribute: attribute };
}

/**
 * The precision of a window TVF's `window_time` over a time column of type `time`: as Flink's
 * SqlWindowTableFunction, window_time keeps the time column's type, so a TIMESTAMP(p > 3) column
 * (which Flink takes in batch mode) gives TIMESTAMP(p), valued window_end - 1 ms; otherwise 3.
 * window_start and window_end are TIMESTAMP(3) whatever the column.
 */
export function windowTimePrecision(time: SqlType): number {
  return isNanoTimestamp(time) ? (time as { precision: number }).precision : 3;
}

/**
 * The factory of {@link LogicalWindowTvf}: the input's columns, then `window_start` and
 * `window_end` (TIMESTAMP(3) NOT NULL) and `window_time`, a time attribute of the time column's
 * kind (none when the time column is a plain timestamp).
 */
export const LogicalWindowTvf = {
  create(args: Fields<LogicalWindowTvf>): LogicalWindowTvf {
    const schema: Field[] = [
      ...args.input.schema,
      { name: 'window_start', type: SqlTypes.timestamp(3, false) },
      { name: 'window_end', type: SqlTypes.timestamp(3, false) },
      { name: 'window_time', type: windowTimeType(args.input.schema[args.timeIndex]!.type) },
    ];
    return { kind: 'window-tvf', input: args.input, timeIndex: args.timeIndex, window: args.window, partitionKeys: args.partitionKeys, schema };
  },
};

/**
 * The columns of a join input in its output: nullable when NULL-padded. An outer join's lose their
 * time attributes, and so do a regular join's (no `interval`: see {@link materializedSchema}); an
 * inner interval or window join keeps them, as Flink's RelTimeIndicatorConverter does.
 */
function joinSide(fields: Schema, joinType: JoinType, paddedBy: JoinType, regular: boolean): Field[] {
  if (joinType === 'INNER') return regular ? [...materializedSchema(fields)] : [...fields];
  const padded = joinType === 'FULL' || joinType === paddedBy;
  return fields.map((f) => ({ ...f, type: withoutTimeAttribute(padded ? withNullable(f.type, true) : f.type) }));
}

/** The factory of {@link LogicalJoin}: the left columns then the right ones, see {@link joinSide}. */
export const LogicalJoin = {
  create(args: Fields<LogicalJoin>): LogicalJoin {
    const regular = args.interval === undefined;
    const schema = [...joinSide(args.left.schema, args.joinType, 'RIGHT', regular), ...joinSide(args.right.schema, args.joinType, 'LEFT', regular)];
    return { kind: 'join', ...args, schema };
  },
};

/** The factory of {@link LogicalDynamicFilter}: the input's schema. */
export const LogicalDynamicFilter = {
  create(args: Fields<LogicalDynamicFilter>): LogicalDynamicFilter {
    return { kind: 'dynamic-filter', ...args, schema: args.input.schema };
  },
};

/** The factory of {@link LogicalRank}: the input's columns, then the number (BIGINT NOT NULL, named `numberName`) when `outputNumber`. */
export const LogicalRank = {
  create(args: Fields<LogicalRank> & { readonly numberName?: string }): LogicalRank {
    const { numberName, ...fields } = args;
    const schema = args.outputNumber ? [...args.input.schema, { name: numberName ?? `$${args.rankType.toLowerCase()}`, type: SqlTypes.bigint(false) }] : args.input.schema;
    return { kind: 'rank', ...fields, schema };
  },
};

/** The factory of {@link LogicalOverAggregate}: the input's columns, then one per call. */
export const LogicalOverAggregate = {
  create(args: Fields<LogicalOverAggregate>): LogicalOverAggregate {
    return { kind: 'over-aggregate', ...args, schema: [...args.input.schema, ...args.calls.map((c) => ({ name: c.name, type: c.type }))] };
  },
};

/** The right columns of a lookup or temporal join: nullable for a LEFT join. */
function paddedWhenLeft(fields: Schema, joinType: 'INNER' | 'LEFT'): Schema {
  return joinType === 'LEFT' ? fields.map((f) => ({ name: f.name, type: withNullable(f.type, true) })) : fields;
}

/** The factory of {@link LogicalLookupJoin}: the input's columns, then the table's (nullable for LEFT). */
export const LogicalLookupJoin = {
  create(args: Fields<LogicalLookupJoin>): LogicalLookupJoin {
    return { kind: 'lookup-join', ...args, schema: [...args.input.schema, ...paddedWhenLeft(args.table.schema, args.joinType)] };
  },
};

/** The factory of {@link LogicalTemporalJoin}: the left columns, then the right ones (nullable for LEFT). */
export const LogicalTemporalJoin = {
  create(args: Fields<LogicalTemporalJoin>): LogicalTemporalJoin {
    return { kind: 'temporal-join', ...args, schema: [...args.left.schema, ...paddedWhenLeft(args.right.schema, args.joinType)] };
  },
};

/** The factory of {@link LogicalSink}: the schema is the table's columns (the input has their types). */
export const LogicalSink = {
  create(args: { readonly input: LogicalNode; readonly target: SinkTarget; readonly columns: Schema }): LogicalSink {
    return { kind: 'sink', input: args.input, target: args.target, schema: args.columns };
  },
};
