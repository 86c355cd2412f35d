/**
 * Join types and the time bounds of interval joins, shared by the planner and the job graph.
 */

/** INNER, or which inputs keep their unmatched rows, padded with NULLs for the other input's columns. */
export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL';

/** True when the rows of input `side` (0 left, 1 right) that match nothing are emitted NULL-padded. */
export function isOuterSide(type: JoinType, side: 0 | 1): boolean {
  return type === 'FULL' || (side === 0 ? type === 'LEFT' : type === 'RIGHT');
}

/** Flink's name of a join type in EXPLAIN: `InnerJoin`, `LeftOuterJoin`, `RightOuterJoin`, `FullOuterJoin`. */
export function joinTypeName(type: JoinType): string {
  return type === 'INNER' ? 'InnerJoin' : `${type[0]}${type.slice(1).toLowerCase()}OuterJoin`;
}

/**
 * The time bounds of an interval join: a left row and a right row can match only when
 * `right[rightTimeIndex] + lower <= left[leftTimeIndex] <= right[rightTimeIndex] + upper`
 * (epoch milliseconds; strict bounds are already turned into inclusive ones). Invariant: lower <= upper.
 */
export interface IntervalBounds {
  readonly leftTimeIndex: number;
  readonly rightTimeIndex: number;
  readonly lower: number;
  readonly upper: number;
  /**
   * Set for a window join: the time columns are the window_end columns of two window
   * aggregations, equated by a join key (and the bounds are 0).
   */
  readonly windowJoin?: true;
}
