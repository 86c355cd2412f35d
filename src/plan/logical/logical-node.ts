/**
 * The logical plan: immutable, `kind`-tagged relational nodes produced by the binder and
 * rewritten by the optimizer. Every node knows its output schema. Nodes never reference the
 * runtime; connector details are carried as data.
 */
import type { ConflictStrategy } from '../../common/conflict-strategy.js';
import type { IntervalBounds, JoinType } from '../../common/join-type.js';
import type { OrderKey } from '../../common/order-key.js';
import type { OverFrame } from '../../common/over-frame.js';
import type { Schema } from '../../common/schema.js';
import type { SqlType } from '../../common/sql-type.js';
import type { WindowSpec } from '../../common/window-spec.js';
import type { WindowFunction } from '../../common/window-function.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';

/** Any logical node. */
export type LogicalNode = LogicalScan | LogicalValues | LogicalProject | LogicalFilter | LogicalAggregate | LogicalUnion | LogicalWatermarkAssigner | LogicalWindowTvf | LogicalJoin | LogicalRank | LogicalOverAggregate | LogicalOverWindow | LogicalSink | LogicalLookupJoin | LogicalTemporalJoin | LogicalSetOperation | LogicalDynamicFilter;

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
 * The legacy group windows (`GROUP BY SESSION(ts, gap)`) bind to the same node.
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
    default:
      return { ...node, input: inputs[0]! };
  }
}
