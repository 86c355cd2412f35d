/**
 * The physical plan: streaming implementations chosen for the logical plan, annotated with the
 * changelog mode each node produces. EXPLAIN prints it; the job graph is lowered from it.
 */
import type { ConflictStrategy } from '../../common/conflict-strategy.js';
import type { IntervalBounds, JoinType } from '../../common/join-type.js';
import type { OrderKey } from '../../common/order-key.js';
import type { OverFrame } from '../../common/over-frame.js';
import type { Schema } from '../../common/schema.js';
import type { AlignedWindowSpec, WindowSpec } from '../../common/window-spec.js';
import type { CorrelateFunction } from '../../expr/correlate-function.js';
import type { ScalarExpr } from '../../expr/scalar-expr.js';
import type { ChangelogMode } from '../changelog/changelog-mode.js';
import type { AggregateCall, OverCall, WindowCall, DynamicFilterComparison, LookupTable, RankRange, RankType, ScanSource, SetOperator, SinkTarget } from '../logical/logical-node.js';

/** Any physical node; `mode` is what it emits (filled in by changelog inference). */
export type PhysicalNode =
  | {
      readonly kind: 'source';
      readonly source: ScanSource;
      /** The columns the connector produces; `schema` may rename them (a projection that only renames is folded into its input). */
      readonly tableSchema: Schema;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | { readonly kind: 'values'; readonly rows: readonly (readonly unknown[])[]; readonly schema: Schema; readonly mode: ChangelogMode }
  | {
      readonly kind: 'calc';
      readonly input: PhysicalNode;
      readonly condition: ScalarExpr | null;
      readonly projection: readonly ScalarExpr[] | null;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /** Flink's Expand: each input row once per projection, with its row kind; `idIndex` is the column that tells the projections apart (`$e`). */
  | {
      readonly kind: 'expand';
      readonly input: PhysicalNode;
      readonly projects: readonly (readonly ScalarExpr[])[];
      readonly idIndex: number;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /** Flink's Correlate: each input row joined with the rows a function of it gives (UNNEST, a table function); stateless. */
  | {
      readonly kind: 'correlate';
      readonly input: PhysicalNode;
      readonly fn: CorrelateFunction;
      readonly joinType: 'INNER' | 'LEFT';
      readonly condition: ScalarExpr | null;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | { readonly kind: 'watermark-assigner'; readonly input: PhysicalNode; readonly rowtimeIndex: number; readonly watermark: ScalarExpr; readonly schema: Schema; readonly mode: ChangelogMode }
  | { readonly kind: 'exchange'; readonly input: PhysicalNode; readonly keys: readonly number[] | null; readonly schema: Schema; readonly mode: ChangelogMode }
  | {
      readonly kind: 'group-aggregate';
      readonly input: PhysicalNode;
      readonly keys: readonly number[];
      readonly calls: readonly AggregateCall[];
      readonly emitUpdateBefore: boolean;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'window-aggregate';
      readonly input: PhysicalNode;
      readonly window: WindowSpec;
      /** Input column with the event time; window_start and window_end follow the input's columns. */
      readonly timeIndex: number;
      /** Grouping columns of the expanded row (input columns, then window_start, window_end). */
      readonly keys: readonly number[];
      readonly calls: readonly AggregateCall[];
      /** Windows over processing time (the time column is a PROCTIME() attribute); absent for event time. */
      readonly processingTime?: true;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'join';
      readonly joinType: JoinType;
      readonly left: PhysicalNode;
      readonly right: PhysicalNode;
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      /** Per key: true for `IS NOT DISTINCT FROM` (NULL matches NULL); absent when every key is a SQL equality. */
      readonly nullSafe?: readonly boolean[];
      /** The non-equi part of the match condition (of an inner join: the filter right above it), over the left then the right columns. */
      readonly condition: ScalarExpr | null;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /**
   * Flink's semi and anti joins (`Join(joinType=[LeftSemiJoin | LeftAntiJoin])`): the left rows
   * with at least one (SEMI) or no (ANTI) matching right row; the output is the left columns. Both
   * inputs are exchanged by their keys (single without keys).
   */
  | {
      readonly kind: 'semi-join';
      readonly anti: boolean;
      readonly left: PhysicalNode;
      readonly right: PhysicalNode;
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      readonly nullSafe?: readonly boolean[];
      /** The non-equi part of the match condition, over the left then the right columns. */
      readonly condition: ScalarExpr | null;
      /** NOT IN's null-aware comparison (left column, right column), see LogicalSemiJoin. */
      readonly nullAwareKey?: readonly [number, number];
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'interval-join';
      readonly joinType: JoinType;
      readonly left: PhysicalNode;
      readonly right: PhysicalNode;
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      readonly bounds: IntervalBounds;
      /** The rest of the match condition besides keys and time bounds (outer joins; an inner join's is a Calc above). */
      readonly condition: ScalarExpr | null;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'lookup-join';
      readonly input: PhysicalNode;
      readonly table: LookupTable;
      readonly joinType: 'INNER' | 'LEFT';
      readonly inputKeys: readonly number[];
      readonly condition: ScalarExpr | null;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'temporal-join';
      readonly left: PhysicalNode;
      readonly right: PhysicalNode;
      readonly joinType: 'INNER' | 'LEFT';
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      readonly leftTimeIndex: number;
      readonly rightTimeIndex: number;
      readonly condition: ScalarExpr | null;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'rank';
      readonly rankType: RankType;
      readonly input: PhysicalNode;
      readonly partitionKeys: readonly number[];
      readonly orderKeys: readonly OrderKey[];
      readonly range: RankRange;
      readonly outputNumber: boolean;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | {
      readonly kind: 'over-aggregate';
      readonly input: PhysicalNode;
      readonly partitionKeys: readonly number[];
      readonly timeIndex: number;
      readonly nullsLast: boolean;
      readonly frame: OverFrame;
      readonly calls: readonly OverCall[];
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /** Window functions over any input, partitions ordered by any columns (the general OVER operator); see LogicalOverWindow. */
  | {
      readonly kind: 'over-window';
      readonly input: PhysicalNode;
      readonly partitionKeys: readonly number[];
      readonly orderKeys: readonly OrderKey[];
      readonly calls: readonly WindowCall[];
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /** Flink's WindowTableFunction: each row once per window containing it, followed by window_start, window_end, window_time. */
  | { readonly kind: 'window-table'; readonly input: PhysicalNode; readonly window: AlignedWindowSpec; readonly timeIndex: number; readonly schema: Schema; readonly mode: ChangelogMode }
  /** Flink's WindowRank: Top-N per partition and window (`windowStart`/`windowEnd` index the input), emitted when the window closes. */
  | {
      readonly kind: 'window-rank';
      readonly input: PhysicalNode;
      readonly window: WindowSpec;
      /** The window runs over a TIMESTAMP_LTZ time: its bounds are wall-clock times of the session zone. */
      readonly zoned?: true;
      readonly windowStart: number;
      readonly windowEnd: number;
      readonly partitionKeys: readonly number[];
      readonly orderKeys: readonly OrderKey[];
      readonly range: RankRange;
      readonly outputNumber: boolean;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /** Flink's WindowJoin: an equi-join of two inputs windowed alike, equating window_start and window_end; `leftKeys`/`rightKeys` are the other equated columns. */
  | {
      readonly kind: 'window-join';
      readonly joinType: JoinType;
      readonly left: PhysicalNode;
      readonly right: PhysicalNode;
      readonly window: WindowSpec;
      /** The windows run over a TIMESTAMP_LTZ time: their bounds are wall-clock times of the session zone. */
      readonly zoned?: true;
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      readonly leftWindow: { readonly start: number; readonly end: number };
      readonly rightWindow: { readonly start: number; readonly end: number };
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /**
   * RisingWave's DynamicFilter: the rows of `input` whose column `inputIndex` compares
   * (`comparison`) with the value of the one row of `bound`, both inputs in one subtask; an ordered
   * index on the column, so that a change of the bound re-scans only the rows between its old and
   * its new value.
   */
  | {
      readonly kind: 'dynamic-filter';
      readonly input: PhysicalNode;
      readonly bound: PhysicalNode;
      readonly inputIndex: number;
      readonly comparison: DynamicFilterComparison;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  | { readonly kind: 'union'; readonly inputs: readonly PhysicalNode[]; readonly schema: Schema; readonly mode: ChangelogMode }
  /**
   * Flink's ChangelogNormalize, right above a source of an upsert changelog (its input hashed by
   * `keys`, the table's primary key): keeps the last row of each key and turns the source's
   * upserts and key-only deletes into a full changelog (+I, -U/+U, -D of whole rows).
   */
  | {
      readonly kind: 'changelog-normalize';
      readonly input: PhysicalNode;
      readonly keys: readonly number[];
      /** Whether its consumer needs -U rows (set by changelog inference). */
      readonly emitUpdateBefore: boolean;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    }
  /** INTERSECT [ALL] / EXCEPT [ALL] of two inputs (Calcite's Intersect and Minus), both hash-exchanged by every column: counts per distinct row on each side. */
  | { readonly kind: 'set-operation'; readonly op: SetOperator; readonly all: boolean; readonly left: PhysicalNode; readonly right: PhysicalNode; readonly schema: Schema; readonly mode: ChangelogMode }
  /**
   * Writes into a table. With `materialize` (set by changelog inference when the table's primary key is
   * not a key of the input, Flink's SinkUpsertMaterializer), the rows are first materialized per primary key
   * and resolved by that conflict strategy, so that the sink receives an upsert changelog of its key.
   */
  | {
      readonly kind: 'sink';
      readonly input: PhysicalNode;
      readonly target: SinkTarget;
      readonly materialize?: ConflictStrategy;
      readonly schema: Schema;
      readonly mode: ChangelogMode;
    };

/** The inputs of a physical node, in order. */
export function physicalInputs(node: PhysicalNode): readonly PhysicalNode[] {
  switch (node.kind) {
    case 'source':
    case 'values':
      return [];
    case 'union':
      return node.inputs;
    case 'join':
    case 'semi-join':
    case 'interval-join':
    case 'temporal-join':
    case 'window-join':
    case 'set-operation':
      return [node.left, node.right];
    case 'dynamic-filter':
      return [node.input, node.bound];
    default:
      return [node.input];
  }
}
