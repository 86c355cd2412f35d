/** The function a Correlate (UNNEST, a table function) calls per row; shared by the plan and the job graph. */
import type { ScalarExpr } from './scalar-expr.js';

/**
 * What a Correlate calls for each input row; its rows are appended to the input row's columns.
 * - `unnest`: the elements of `expr`, an ARRAY (one column), an ARRAY of ROWs (one column per
 *   field; a NULL element gives NULLs) or a MAP (key and value, in the map's order); a NULL or
 *   empty collection gives no rows. With `withOrdinality`, each row is followed by its position
 *   (INT, from 1).
 * - `table-function`: the rows of the user-defined table function `name` (registered in the
 *   function registry the runtime compiles with) called on the values of `args`.
 */
export type CorrelateFunction =
  | { readonly kind: 'unnest'; readonly expr: ScalarExpr; readonly source: 'array' | 'array-of-rows' | 'map'; readonly withOrdinality: boolean }
  | { readonly kind: 'table-function'; readonly name: string; readonly args: readonly ScalarExpr[] };
