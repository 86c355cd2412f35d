/**
 * The job graph: the serialisable contract between the planner and the runtime. The planner
 * produces it, EXPLAIN can print it, checkpoints record its fingerprint, and the runtime builds
 * operators from it without knowing anything about SQL. Bump {@link JOB_GRAPH_VERSION} whenever a
 * spec changes meaning, so that state written by an older graph is never misread.
 */
import type { ConflictStrategy } from '../common/conflict-strategy.js';
import type { IntervalBounds, JoinType } from '../common/join-type.js';
import type { OrderKey } from '../common/order-key.js';
import type { OverFrame } from '../common/over-frame.js';
import type { WindowFunction } from '../common/window-function.js';
import { createHash } from 'node:crypto';
import { bytesToHex, hexToBytes } from '../common/bytes.js';
import { WeirError } from '../common/errors.js';
import type { Schema } from '../common/schema.js';
import type { AlignedWindowSpec, WindowSpec } from '../common/window-spec.js';
import type { CorrelateFunction } from '../expr/correlate-function.js';
import type { ScalarExpr } from '../expr/scalar-expr.js';

/** Version of the job-graph format. */
export const JOB_GRAPH_VERSION = 2;

/** A job: named operators in topological order (every input precedes its consumer). */
export interface JobGraph {
  readonly version: typeof JOB_GRAPH_VERSION;
  readonly name: string;
  readonly nodes: readonly JobNode[];
  /**
   * Flink's `table.local-time-zone`, resolved (`Asia/Shanghai`, `GMT+08:00`; never `default`): the
   * zone the job's expressions and windows read TIMESTAMP_LTZ instants in. Absent means UTC. Part
   * of the fingerprint: a checkpoint restores only into a graph computing in the same zone.
   */
  readonly localTimeZone?: string;
}

/** One operator of the job, with its inputs and output schema. */
export interface JobNode {
  /** Stable within a graph: derived from the plan, so that state is matched to operators on restore. */
  readonly id: string;
  readonly spec: OperatorSpec;
  readonly parallelism: number;
  readonly inputs: readonly JobEdge[];
  readonly schema: Schema;
  /**
   * The independent part of a graph made of several (see {@link unionJobGraphs}): a checkpoint
   * restores each part whose nodes are unchanged, and starts the others afresh.
   */
  readonly part?: string;
  /**
   * Flink's `table.exec.state.ttl` for operators whose state would otherwise grow without bound
   * (regular joins, group aggregates, ranks, OVER aggregates): the state of a key idle this long is dropped. Not
   * part of the fingerprint, so a job restores under a changed retention.
   */
  readonly stateTtlMillis?: number;
  /**
   * Flink's `table.exec.source.idle-timeout` on a source: after this long without records it is
   * idle and does not hold back watermarks downstream. Not part of the fingerprint.
   */
  readonly sourceIdleTimeoutMillis?: number;
  /**
   * The zone of this node's part when it differs from the graph's (a union of parts planned in
   * different session zones: materialized views keep the zone they were created in); absent: the
   * graph's {@link JobGraph.localTimeZone}. Part of the fingerprint.
   */
  readonly localTimeZone?: string;
}

/**
 * How records travel from a producer to a consumer's subtasks. `forward` keeps records on the
 * subtask of the same index; between operators of different parallelism the runtime turns it
 * into `rebalance` (round-robin per batch).
 */
export type Partitioning =
  | { readonly kind: 'forward' }
  | { readonly kind: 'rebalance' }
  | { readonly kind: 'hash'; readonly keys: readonly number[] }
  | { readonly kind: 'single' }
  | { readonly kind: 'broadcast' };

/** An input of a node. */
export interface JobEdge {
  readonly from: string;
  readonly partitioning: Partitioning;
}

/** What a node does; the runtime has exactly one implementation per kind. */
export type OperatorSpec =
  | SourceSpec
  | ValuesSpec
  | CalcSpec
  | ExpandSpec
  | CorrelateSpec
  | WatermarkAssignerSpec
  | GroupAggregateSpec
  | WindowAggregateSpec
  | JoinSpec
  | SemiJoinSpec
  | IntervalJoinSpec
  | RankSpec
  | OverAggregateSpec
  | OverWindowSpec
  | UnionSpec
  | SinkSpec
  | SinkUpsertMaterializerSpec
  | ChangelogNormalizeSpec
  | LookupJoinSpec
  | TemporalJoinSpec
  | WindowTableSpec
  | WindowRankSpec
  | WindowJoinSpec
  | SetOperationSpec
  | DynamicFilterSpec;

/** Reads a table through its connector. */
export interface SourceSpec {
  readonly kind: 'source';
  /** The table's name, for messages and metrics. */
  readonly table: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** The physical columns the connector produces. */
  readonly schema: Schema;
  /** The table's declared primary key, when it has one (a CDC source checks it against the database's). */
  readonly primaryKey?: readonly string[];
}

/** A bounded inline table. Values use the runtime representation of the schema's types. */
export interface ValuesSpec {
  readonly kind: 'values';
  readonly rows: readonly (readonly unknown[])[];
}

/** Filter then project, fused: rows for which `condition` is TRUE, projected by `projection` (all columns when null). */
export interface CalcSpec {
  readonly kind: 'calc';
  readonly condition: ScalarExpr | null;
  readonly projection: readonly ScalarExpr[] | null;
}

/**
 * Flink's Expand: every input record once per projection (in order, all of a record's before the
 * next record's), each keeping the record's kind. Stateless.
 */
export interface ExpandSpec {
  readonly kind: 'expand';
  readonly projects: readonly (readonly ScalarExpr[])[];
}

/**
 * Flink's Correlate (a join with a table function of each row's columns): each input record, with
 * its kind, once for each row `fn` gives for it (the input's `inputArity` columns, then the
 * function's `functionArity`) for which `condition` (over those columns, null for none) is TRUE;
 * `LEFT` gives a record with the function's columns NULL when no row passes. Stateless: the output
 * of a record is a function of it (`fn` must be deterministic), so a retraction retracts exactly
 * what its insertion emitted.
 */
export interface CorrelateSpec {
  readonly kind: 'correlate';
  readonly fn: CorrelateFunction;
  readonly joinType: 'INNER' | 'LEFT';
  readonly inputArity: number;
  readonly functionArity: number;
  readonly condition: ScalarExpr | null;
}

/**
 * Emits watermarks: after each batch, the largest value of `watermark` (evaluated per input row)
 * seen so far, when it has advanced. Records go on as a Calc would pass them: those for which
 * `condition` is TRUE (all when null), projected by `projection` (unchanged when null) — the
 * planner fuses the Calcs around an assigner into it, so that rows a filter drops are never
 * copied. The records of a batch go out before its watermark.
 */
export interface WatermarkAssignerSpec {
  readonly kind: 'watermark-assigner';
  readonly watermark: ScalarExpr;
  readonly condition: ScalarExpr | null;
  readonly projection: readonly ScalarExpr[] | null;
}

/** One aggregate call of a group aggregation. */
export interface AggregateCallSpec {
  /** Canonical function name: COUNT, SUM, AVG, MIN, MAX. */
  readonly function: string;
  /** Input column indexes (empty for COUNT(*)). */
  readonly args: readonly number[];
  readonly distinct: boolean;
  /** Index of a BOOLEAN input column: only rows where it is TRUE are aggregated (`FILTER (WHERE ...)`). */
  readonly filter: number | null;
  /** Result type, as resolved by the binder. */
  readonly type: ScalarExpr['type'];
  /** Types of the arguments. */
  readonly argTypes: readonly ScalarExpr['type'][];
}

/**
 * Incremental GROUP BY: output rows are the key columns followed by the aggregate values. Emits one
 * change per changed key per batch: +I for a new group, -U/+U for a changed one (or +U only when
 * `emitUpdateBefore` is false), -D when the last row of a group is retracted.
 */
export interface GroupAggregateSpec {
  readonly kind: 'group-aggregate';
  readonly keys: readonly number[];
  readonly aggregates: readonly AggregateCallSpec[];
  /** Whether the input carries retractions (-U/-D); when false, cheaper accumulators are used. */
  readonly inputRetracts: boolean;
  readonly emitUpdateBefore: boolean;
}

/**
 * Window aggregation over an insert-only input: each row is assigned to its windows (by the event
 * time in column `timeIndex`), becoming the row followed by `window_start` and `window_end`; the
 * expanded rows are grouped by `keys` (which include both window columns) and each group's final
 * row is emitted once, as +I, when the watermark passes its window's end. Late rows are dropped
 * and counted. SESSION windows are formed per value of the other keys, from the rows themselves:
 * rows within `gap` of each other share one, whose bounds are its first time and its last time + gap.
 */
export interface WindowAggregateSpec {
  readonly kind: 'window-aggregate';
  readonly window: WindowSpec;
  readonly timeIndex: number;
  /**
   * Over a TIMESTAMP_LTZ time column, the session zone (absent for UTC): windows are aligned to
   * the wall clock of the zone (a 1-day TUMBLE starts at local midnight; window_start and
   * window_end are wall-clock TIMESTAMPs) and close when the watermark has passed their last
   * instant, as Flink's windows over TIMESTAMP_LTZ.
   */
  readonly timeZone?: string;
  readonly keys: readonly number[];
  readonly aggregates: readonly AggregateCallSpec[];
  /**
   * Windows over processing time (a PROCTIME() attribute): rows fall into the windows of the
   * operator's clock when they arrive, windows fire on wall-clock timers and at the end of input.
   * Absent for event time.
   */
  readonly processingTime?: true;
}

/**
 * Regular join of input 0 (left) and input 1 (right), both hash-partitioned by their keys:
 * every row is kept in keyed state (a multiset per side) and matched against the other side's
 * rows of the same key. Accumulating changes (+I, +U) emit +I per match, retracting ones (-U, -D)
 * emit -D per match. A NULL key matches nothing, except under a `nullSafe` key. An outer join
 * (`joinType`) also requires `condition` of a match, and emits a row of an outer input that
 * matches nothing padded with NULLs: +I while it has no match, -D when its first match arrives,
 * +I again when its last goes. Without keys (a nested-loop join) both inputs go to one subtask and
 * every row is matched against all rows of the other input.
 */
export interface JoinSpec {
  readonly kind: 'join';
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftArity: number;
  readonly rightArity: number;
  /**
   * Whether an input can retract (-U or -D): its rows are then kept as a counted multiset indexed
   * by row, otherwise as an append-only list per key (a stray retraction is still honoured, by a
   * search). Only the state layout depends on it, never the output; absent means false.
   */
  readonly leftRetracts?: boolean;
  readonly rightRetracts?: boolean;
  /** LEFT, RIGHT or FULL; absent for an inner join (so inner joins keep their fingerprint). */
  readonly joinType?: Exclude<JoinType, 'INNER'>;
  /** Per key: true when NULL matches NULL (`IS NOT DISTINCT FROM`; Flink's `filterNulls` negated); absent when no key is. */
  readonly nullSafe?: readonly boolean[];
  /** The non-equi part of the match condition, over the left then the right columns (absent when there is none). */
  readonly condition?: ScalarExpr;
}

/**
 * A semi join (the left rows with a matching right row) or an anti join (those without one),
 * emitting left rows only: a left row is inserted when its first match arrives and deleted when its
 * last one goes (inversely for ANTI). A match is equal keys (a NULL key matches nothing unless
 * `nullSafe`) and `condition` TRUE.
 */
export interface SemiJoinSpec {
  readonly kind: 'semi-join';
  readonly anti: boolean;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftArity: number;
  readonly rightArity: number;
  readonly nullSafe?: readonly boolean[];
  /** The non-equi part of the match condition, over the left then the right columns (absent when there is none). */
  readonly condition?: ScalarExpr;
  /**
   * ANTI only (NOT IN): a left column and a right column that match when equal or when either is
   * NULL, on top of the keys and with no condition (the null-aware anti join).
   */
  readonly nullAwareKey?: readonly [number, number];
}

/** The table a lookup join reads through its connector, by the values of columns `keys`. */
export interface LookupTableSpec {
  readonly table: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  /** The table's physical columns, which the looked-up rows have. */
  readonly schema: Schema;
  readonly keys: readonly number[];
}

/**
 * Processing-time lookup join (`JOIN t FOR SYSTEM_TIME AS OF s.proc_time ON t.k = s.x`): each
 * input row is joined with the rows of `lookup.table` whose key columns equal the input's columns
 * `inputKeys`, as the table is when the row arrives; output rows are the input row followed by
 * the table row, with the input row's kind. `condition` (over that output row) filters matches; a
 * LEFT join emits the input row padded with NULLs when no match passes. A NULL key matches
 * nothing. Keeps no state but the input rows whose lookups are in flight at a barrier.
 */
export interface LookupJoinSpec {
  readonly kind: 'lookup-join';
  readonly joinType: 'INNER' | 'LEFT';
  readonly lookup: LookupTableSpec;
  readonly inputKeys: readonly number[];
  readonly inputArity: number;
  readonly condition: ScalarExpr | null;
}

/**
 * Event-time temporal join of an insert-only input 0 (left) with the versions of a keyed input 1
 * (right, any changelog: +I/+U add a version at the row's time `rightTimeIndex`, -D ends the key
 * at its time, -U is ignored), both hash-partitioned by their keys. Left rows wait in keyed state
 * until the watermark (the minimum of both inputs) reaches their time `leftTimeIndex`; then each is
 * joined with the latest version at or before that time, if `condition` (over left ++ right)
 * holds, or padded with NULLs for a LEFT join; output is insert-only. Versions that no later left
 * row can see (all but the latest at or before the watermark) are dropped.
 */
export interface TemporalJoinSpec {
  readonly kind: 'temporal-join';
  readonly joinType: 'INNER' | 'LEFT';
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftTimeIndex: number;
  readonly rightTimeIndex: number;
  readonly leftArity: number;
  readonly rightArity: number;
  readonly condition: ScalarExpr | null;
}

/**
 * Interval join of two insert-only inputs hash-partitioned by their keys (Flink's
 * RowTimeIntervalJoin): a left and a right row match when their keys are equal, their times are
 * within `bounds` and `condition` (if any) holds; each match is emitted once, as +I. Rows are kept
 * in keyed state only while a row of the other input that is not behind the watermark could still
 * match them; a row arriving behind the watermark is late: dropped and counted. An outer input's
 * row that matched nothing is emitted NULL-padded when it leaves state. The output watermark is
 * the input watermark held back by the bounds, so that output rows are never behind it.
 */
export interface IntervalJoinSpec {
  readonly kind: 'interval-join';
  readonly joinType: JoinType;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftArity: number;
  readonly rightArity: number;
  readonly bounds: IntervalBounds;
  readonly condition: ScalarExpr | null;
}

/**
 * Top-N per partition (ROW_NUMBER(), RANK() or DENSE_RANK() OVER (PARTITION BY ... ORDER BY ...)
 * filtered to a rank range, Flink's Rank): output rows are the input row followed by its number,
 * for the rows numbered from `rankStart` to `limit`. A change emits the rows whose number or
 * presence changed (-U/+U, +I, -D); without the number (`outputRankNumber` false) only the rows
 * that enter or leave the range (+I, -D). ROW_NUMBER ties keep arrival order; no order keys
 * number the rows in arrival order (Flink's Limit).
 */
export interface RankSpec {
  readonly kind: 'rank';
  readonly partitionKeys: readonly number[];
  readonly orderKeys: readonly OrderKey[];
  /** The highest number kept (Flink's rankEnd); rows numbered beyond it are not emitted. */
  readonly limit: number;
  /** The lowest number emitted (Flink's rankStart, from 1; `OFFSET m` is m + 1); absent means 1. */
  readonly rankStart?: number;
  /** Whether output rows end with their number (Flink's outputRankNumber); absent means true. */
  readonly outputRankNumber?: boolean;
  /** How rows are numbered: ties share a RANK (with gaps after them) or a DENSE_RANK; absent means ROW_NUMBER. */
  readonly rankType?: 'RANK' | 'DENSE_RANK';
  /**
   * Whether the input retracts (-U/-D): every row of a partition is then kept, since a retraction
   * can pull a row from beyond the limit into it (Flink's RetractableTopNFunction); absent means false.
   */
  readonly inputRetracts?: boolean;
}

/**
 * `agg(...) OVER (PARTITION BY ... ORDER BY time <frame>)`: output rows are the input row followed
 * by the aggregates over its frame within its partition, ordered by the time column `timeIndex`
 * (ties by arrival). `rowtime`: insert-only input, rows wait until the watermark passes their time
 * and are then emitted once (+I) in time order, late rows are dropped and counted; `proctime`:
 * insert-only input processed on arrival; `updating`: an input with retractions, whose output is
 * the dynamic table of every row's current aggregates (+I/-D for the row, -U/+U for the rows whose
 * frame it enters or leaves).
 */
export interface OverAggregateSpec {
  readonly kind: 'over-aggregate';
  readonly partitionKeys: readonly number[];
  readonly timeIndex: number;
  readonly frame: OverFrame;
  readonly aggregates: readonly AggregateCallSpec[];
  readonly mode: 'rowtime' | 'proctime' | 'updating';
  /**
   * Whether rows whose time is NULL order after the others (`ORDER BY time NULLS LAST`); absent
   * means before them (Flink's default for ascending). Only an updating input holds such rows: an
   * insert-only rowtime input drops them as late, and a processing time is never NULL.
   */
  readonly nullsLast?: boolean;
  /** LAG calls (`rowtime`/`proctime` only), among the aggregates' results at their `position`s; absent means none. */
  readonly lags?: readonly OverLagSpec[];
}

/**
 * `LAG(arg, offset, default)` in an OVER aggregate: column `arg` of the row `offset` rows before
 * the current one in its key's processing order, else column `default` of the current row (NULL
 * when null); its value is the `position`-th of the output's computed columns.
 */
export interface OverLagSpec {
  readonly position: number;
  readonly arg: number;
  readonly offset: number;
  readonly default: number | null;
}

/**
 * Window functions over any input, each row's partition ordered by `orderKeys` (any columns;
 * peers in arrival order): output rows are the input row followed by one value per function (see
 * common/window-function.ts). Each partition keeps its rows in order, with the values last emitted
 * for them, in one keyed value. A batch's changes are applied to their partitions, each touched
 * partition's values are computed again, and only what changed is emitted: -D for a removed row,
 * +I for a new one, -U/+U for a row whose values changed (a neighbour's LAG, a partition's NTILE).
 */
export interface OverWindowSpec {
  readonly kind: 'over-window';
  readonly partitionKeys: readonly number[];
  readonly orderKeys: readonly OrderKey[];
  readonly functions: readonly WindowFunction<AggregateCallSpec>[];
}

/**
 * A window table function over an insert-only input: each row is emitted once per window that
 * contains its event time (column `timeIndex`), followed by window_start, window_end and
 * window_time (= window_end - 1 ms). Stateless.
 */
export interface WindowTableSpec {
  readonly kind: 'window-table';
  readonly window: AlignedWindowSpec;
  readonly timeIndex: number;
  /**
   * Over a TIMESTAMP_LTZ time column, the session zone (absent for UTC): windows are aligned to
   * the wall clock of the zone (window_start and window_end are wall-clock TIMESTAMPs, window_time
   * the window's last instant), as Flink's windows over TIMESTAMP_LTZ.
   */
  readonly timeZone?: string;
  /** The time column is a TIMESTAMP(p > 3): window_time is epoch nanos (of window_end - 1 ms), as its type (logical-node.ts, windowTimePrecision). */
  readonly nanos?: boolean;
}

/**
 * Window Top-N over an insert-only windowed input: `partitionKeys` include the window's columns
 * (`windowEnd` is the window_end column). The first `limit` rows of each partition are kept in
 * keyed state; when the watermark passes the window's end, those numbered from `rankStart` on are
 * emitted once, as +I followed by their row number (unless `outputRankNumber` is false), and the
 * partition's state is cleared. Rows of a closed window are late: dropped and counted. Ties keep
 * arrival order.
 */
export interface WindowRankSpec {
  readonly kind: 'window-rank';
  readonly partitionKeys: readonly number[];
  readonly orderKeys: readonly OrderKey[];
  /** The highest row number kept (Flink's rankEnd). */
  readonly limit: number;
  /** The lowest row number emitted (Flink's rankStart); absent means 1. */
  readonly rankStart?: number;
  /** Whether output rows end with their number (Flink's outputRankNumber); absent means true. */
  readonly outputRankNumber?: boolean;
  readonly windowEnd: number;
  /** The session zone when the window runs over a TIMESTAMP_LTZ time outside UTC: window ends are wall-clock times there, compared with the watermark read on that clock. */
  readonly timeZone?: string;
}

/**
 * Window join of input 0 (left) and input 1 (right), insert-only and windowed alike, which
 * equates window_start and window_end (`leftWindowEnd` and `rightWindowEnd` index window_end) and
 * `leftKeys` with `rightKeys`, the columns both inputs are hash-partitioned by (one subtask when
 * there are none). Each side's rows wait in keyed state until the watermark (the minimum of both
 * inputs) passes their window's end; then the window's rows are joined, emitted as +I, and the
 * state cleared; an outer side's rows that matched nothing are emitted padded with NULLs
 * (`leftArity`/`rightArity` columns). Rows of a closed window are late: dropped and counted. A
 * NULL key matches nothing.
 */
export interface WindowJoinSpec {
  readonly kind: 'window-join';
  readonly joinType: JoinType;
  readonly leftArity: number;
  readonly rightArity: number;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly leftWindowEnd: number;
  readonly rightWindowEnd: number;
  /** The session zone when the windows run over a TIMESTAMP_LTZ time outside UTC: window ends are wall-clock times there, compared with the watermark read on that clock. */
  readonly timeZone?: string;
}

/**
 * INTERSECT [ALL] or EXCEPT [ALL] of input 0 (left) and input 1 (right), which share one schema
 * and are both hash-partitioned by every column. Per distinct row (all columns equal, NULL equal
 * to NULL) the operator keeps in keyed state how many copies each input holds (+I/+U add one,
 * -U/-D remove one; a retraction of a row an input does not hold is ignored) and emits the change
 * of the row's output count — min(l, r) for INTERSECT ALL, max(l - r, 0) for EXCEPT ALL, 1 when
 * l > 0 and r > 0 (INTERSECT) or l > 0 and r = 0 (EXCEPT), else 0 — as that many +I or -D, once
 * per batch for each row the batch changed. A row whose counts are both 0 leaves state.
 */
export interface SetOperationSpec {
  readonly kind: 'set-operation';
  readonly op: 'INTERSECT' | 'EXCEPT';
  readonly all: boolean;
  /** The number of columns, all of which form the key. */
  readonly arity: number;
}

/**
 * RisingWave's DynamicFilter of input 0 by the one row of input 1 (a global aggregate; its column
 * 0 is the bound), both sent to one subtask: emits the rows of input 0 whose column `inputIndex`
 * compares with `comparison` to the bound (`row[inputIndex] > bound`, ...), as +I when a row
 * enters the result and -D when it leaves it: on a change of input 0 (+I/+U accumulate, -U/-D
 * retract), and on a change of the bound for the rows whose value lies between the old and the
 * new bound, found in an ordered index of the column. Nothing passes while input 1 has no row or
 * its value is NULL; a row whose value is NULL (or NaN) never passes.
 */
export interface DynamicFilterSpec {
  readonly kind: 'dynamic-filter';
  readonly inputIndex: number;
  readonly comparison: '<' | '<=' | '>' | '>=';
}

/** UNION ALL of the inputs, which share one schema. */
export interface UnionSpec {
  readonly kind: 'union';
}

/**
 * Flink's SinkUpsertMaterializer, before a sink whose primary key is not a key of its input: its
 * input (hash-partitioned by `keys`, the sink's primary key columns) is kept per primary key as the
 * list of rows present, in arrival order, and the output is an upsert changelog of that key (+I,
 * +U, -D) holding the row `conflictStrategy` picks: the latest (`DEDUPLICATE`) or the earliest
 * (`NOTHING`); `ERROR` keeps the latest and fails the job when a key holds two rows at a barrier or
 * at the end of input. A retraction removes one row equal to it; one of a row never added is
 * ignored, with one warning.
 */
export interface SinkUpsertMaterializerSpec {
  readonly kind: 'sink-upsert-materializer';
  /** The sink table, for messages. */
  readonly table: string;
  readonly keys: readonly number[];
  readonly conflictStrategy: ConflictStrategy;
}

/**
 * Flink's ChangelogNormalize, after a source of an upsert changelog: its input (hash-partitioned by
 * `keys`, the table's primary key) holds new rows of a key (+I or +U, never -U) and deletes that
 * may carry only the key's columns; it keeps the last row of each key and emits a full changelog:
 * +I for a new key, -U (with `emitUpdateBefore`) and +U for a changed row, -D of the whole last row
 * for a delete. A row equal to the last is no change; a delete of an unknown key is dropped. A
 * column the source marks unchanged (an unchanged TOASTed value) takes the last row's value.
 */
export interface ChangelogNormalizeSpec {
  readonly kind: 'changelog-normalize';
  readonly keys: readonly number[];
  readonly emitUpdateBefore: boolean;
}

/** Writes into a table through its connector. */
export interface SinkSpec {
  readonly kind: 'sink';
  readonly table: string;
  readonly connector: string;
  readonly options: Readonly<Record<string, string>>;
  readonly schema: Schema;
  readonly primaryKey: readonly string[];
  /** The table's `PARTITIONED BY` columns, when it has any (absent otherwise, so that unpartitioned graphs keep their fingerprint). */
  readonly partitionedBy?: readonly string[];
  /**
   * The table is a multiset without a key: every +I/+U inserts a row and every -U/-D removes one
   * row equal to it. The sink's input is hash-partitioned by all its columns, so that the rows
   * equal to one another are written by one subtask.
   */
  readonly multiset?: true;
  /**
   * What identifies the job across restarts (`pipeline.name`, or derived from its statement);
   * transactional sinks put it into the ids of the transactions they leave in external systems.
   */
  readonly jobKey?: string;
}

/**
 * Identifies what a graph computes, independently of its name and parallelism: a checkpoint may
 * only be restored into a graph with the same fingerprint.
 */
export function graphFingerprint(graph: JobGraph): string {
  const shape = graph.nodes.map((n) => ({ id: n.id, spec: n.spec, inputs: n.inputs, schema: n.schema, ...(n.localTimeZone === undefined ? {} : { localTimeZone: n.localTimeZone }) }));
  return createHash('sha256').update(serializeJobGraph({ ...graph, name: '', nodes: shape as unknown as JobNode[] })).digest('hex').slice(0, 32);
}

/**
 * One graph of several independent ones (the materialized views of a session, each its own
 * pipeline): node ids are prefixed with the part's name (`part.id`; a part name is made of
 * `[A-Za-z0-9_-]`, so ids stay file names), and every node records its part, so that a checkpoint
 * of the union restores each part that is unchanged.
 */
export function unionJobGraphs(name: string, parts: readonly { readonly part: string; readonly graph: JobGraph }[]): JobGraph {
  const nodes = parts.flatMap(({ part, graph }) => {
    if (!/^[A-Za-z0-9_-]+$/.test(part)) throw new WeirError('INTERNAL_ERROR', `part name '${part}' is not made of [A-Za-z0-9_-]`);
    const prefixed = (id: string): string => `${part}.${id}`;
    // Each part keeps its own zone, on its nodes (the union has none of its own).
    const zone = graph.localTimeZone === undefined ? {} : { localTimeZone: graph.localTimeZone };
    return graph.nodes.map((node) => ({ ...node, id: prefixed(node.id), part, ...zone, inputs: node.inputs.map((edge) => ({ ...edge, from: prefixed(edge.from) })) }));
  });
  return { version: JOB_GRAPH_VERSION, name, nodes };
}

/** The fingerprint of each part of a union graph (see {@link graphFingerprint}); empty for a graph without parts. */
export function partFingerprints(graph: JobGraph): Record<string, string> {
  const byPart = new Map<string, JobNode[]>();
  for (const node of graph.nodes) if (node.part !== undefined) byPart.set(node.part, [...(byPart.get(node.part) ?? []), node]);
  return Object.fromEntries([...byPart].map(([part, nodes]) => [part, graphFingerprint({ ...graph, nodes })]));
}

/**
 * A JSON.stringify replacer that tags bigint values (DECIMALs, BIGINTs beyond 2^53) as
 * `{ "$bigint": "<digits>" }` and binary strings (Uint8Array) as `{ "$bytes": "<hex>" }`, so that
 * they survive (in job graphs, and in operator state kept in checkpoint metadata); {@link bigintReviver} undoes it.
 */
export function bigintReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  return value instanceof Uint8Array ? { $bytes: bytesToHex(value) } : value;
}

/** The JSON.parse reviver that turns the tags of {@link bigintReplacer} back into bigints and Uint8Arrays. */
export function bigintReviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 1) {
    if ('$bigint' in value) return BigInt((value as { $bigint: string }).$bigint);
    if ('$bytes' in value) {
      const bytes = hexToBytes((value as { $bytes: string }).$bytes);
      if (bytes === undefined) throw new WeirError('INTERNAL_ERROR', `malformed binary string tag ${JSON.stringify(value)}`);
      return bytes;
    }
  }
  return value;
}

/** Serialises a graph to JSON text (bigint values are tagged so that they survive). */
export function serializeJobGraph(graph: JobGraph): string {
  return JSON.stringify(graph, bigintReplacer);
}

/** The inverse of {@link serializeJobGraph}. */
export function deserializeJobGraph(text: string): JobGraph {
  return JSON.parse(text, bigintReviver) as JobGraph;
}
