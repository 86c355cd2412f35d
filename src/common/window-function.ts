/**
 * The window functions of the general OVER operator, shared by the plan and the job graph: what a
 * call computes for each row of its partition, ordered by the window's ORDER BY (rows that order
 * equal are peers). The planner accepts exactly the functions named in {@link WINDOW_FUNCTIONS}
 * plus aggregate functions; the runtime (over-window-operator.ts) computes each kind.
 */

/** Functions numbering rows by their place in the partition's order (no arguments). */
export type RankingFunctionName = 'ROW_NUMBER' | 'RANK' | 'DENSE_RANK' | 'PERCENT_RANK' | 'CUME_DIST';

/** Every window function that is not an aggregate function, by kind. */
export const WINDOW_FUNCTIONS: ReadonlyMap<string, 'ranking' | 'ntile' | 'offset' | 'frame-value'> = new Map([
  ['ROW_NUMBER', 'ranking'],
  ['RANK', 'ranking'],
  ['DENSE_RANK', 'ranking'],
  ['PERCENT_RANK', 'ranking'],
  ['CUME_DIST', 'ranking'],
  ['NTILE', 'ntile'],
  ['LAG', 'offset'],
  ['LEAD', 'offset'],
  ['FIRST_VALUE', 'frame-value'],
  ['LAST_VALUE', 'frame-value'],
] as const);

/**
 * The frame of a row: the rows from `start` to `end` of its partition. `ROWS`: offsets from the
 * current row (negative before it, positive after it, 0 the row itself). `RANGE`: 0 is the first
 * (`start`) or last (`end`) peer of the current row. null: the partition's first row (`start`) or
 * last row (`end`). An empty frame is one whose start lies after its end.
 */
export interface WindowFrame {
  readonly unit: 'ROWS' | 'RANGE';
  readonly start: number | null;
  readonly end: number | null;
}

/** The default frame (SQL's): RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, the whole partition when it has no ORDER BY. */
export const DEFAULT_WINDOW_FRAME: WindowFrame = { unit: 'RANGE', start: null, end: 0 };

/**
 * One window function call; `A` is how an aggregate call is described (the plan's call, or the
 * job graph's spec). Column indexes refer to the operator's input.
 * - `ranking`: ROW_NUMBER (1, 2, ... in order, peers in arrival order), RANK (1 + the rows before
 *   the first peer), DENSE_RANK (1 + the distinct peer groups before), PERCENT_RANK ((RANK - 1) /
 *   (rows - 1), 0 for one row), CUME_DIST (rows up to the last peer / rows).
 * - `ntile`: NTILE(buckets), the bucket 1..buckets of the row, buckets as equal as can be, the
 *   larger ones first.
 * - `offset`: LAG (`offset` rows before) or LEAD (after) of column `arg`, else the current row's
 *   column `default` (NULL when absent).
 * - `frame-value`: FIRST_VALUE or LAST_VALUE of column `arg` in the frame, NULL when it is empty.
 * - `aggregate`: an aggregate over the frame.
 */
export type WindowFunction<A> =
  | { readonly kind: 'ranking'; readonly function: RankingFunctionName }
  | { readonly kind: 'ntile'; readonly buckets: number }
  | { readonly kind: 'offset'; readonly function: 'LAG' | 'LEAD'; readonly arg: number; readonly offset: number; readonly default: number | null }
  | { readonly kind: 'frame-value'; readonly function: 'FIRST_VALUE' | 'LAST_VALUE'; readonly arg: number; readonly frame: WindowFrame }
  | { readonly kind: 'aggregate'; readonly aggregate: A; readonly frame: WindowFrame };

/** The window function computing the aggregate `aggregate` over `frame`. */
export function windowAggregate<A>(aggregate: A, frame: WindowFrame): Extract<WindowFunction<A>, { kind: 'aggregate' }> {
  return { kind: 'aggregate', aggregate, frame };
}

/** The frame as SQL writes it: `ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING`. */
export function formatWindowFrame(frame: WindowFrame): string {
  const bound = (offset: number | null, unbounded: string): string => (offset === null ? unbounded : offset === 0 ? 'CURRENT ROW' : offset < 0 ? `${-offset} PRECEDING` : `${offset} FOLLOWING`);
  return `${frame.unit} BETWEEN ${bound(frame.start, 'UNBOUNDED PRECEDING')} AND ${bound(frame.end, 'UNBOUNDED FOLLOWING')}`;
}
