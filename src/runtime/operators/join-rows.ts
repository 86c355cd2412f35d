/** Row helpers shared by the join operators: building output rows and testing join keys. */
import type { Row } from '../../common/row.js';
import type { RowCombiner } from '../state/join-record-state-view.js';

/** A generated function returning a new array literal of the left row's columns then the right row's. */
export function rowCombiner(leftArity: number, rightArity: number): RowCombiner {
  const columns: string[] = [];
  for (let i = 0; i < leftArity; i++) columns.push(`l[${i}]`);
  for (let i = 0; i < rightArity; i++) columns.push(`r[${i}]`);
  return new Function('l', 'r', `return [${columns.join(', ')}];`) as RowCombiner;
}

/** The key columns under which a NULL matches nothing: all of `keys` but the `nullSafe` ones (`IS NOT DISTINCT FROM`). */
export function nullRejectingColumns(keys: readonly number[], nullSafe: readonly boolean[] | undefined): number[] {
  return nullSafe === undefined ? [...keys] : keys.filter((_, i) => nullSafe[i] !== true);
}

/** True when any of `columns` of `row` is NULL (such a join key matches nothing). */
export function hasNull(row: Row, columns: readonly number[]): boolean {
  for (let i = 0; i < columns.length; i++) if (row[columns[i]!] === null) return true;
  return false;
}

/** Builds the output row of an unmatched row of input `side` (0 left, 1 right): the row with NULLs for the other input's columns. */
export function nullPadder(side: 0 | 1, leftArity: number, rightArity: number): (row: Row) => Row {
  const combine = rowCombiner(leftArity, rightArity);
  const nulls: Row = new Array<null>(side === 0 ? rightArity : leftArity).fill(null);
  return side === 0 ? (row) => combine(row, nulls) : (row) => combine(nulls, row);
}
