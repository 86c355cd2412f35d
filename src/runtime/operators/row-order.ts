/** Row comparison by ORDER BY keys, for operators that keep rows sorted. */
import type { OrderKey } from '../../common/order-key.js';
import type { Row } from '../../common/row.js';
import { precedes } from '../aggregates/ordered-multiset.js';

/** True when row `a` orders strictly before row `b` under `orderKeys` (NULLs as `precedes` orders them). */
export function orderedBefore(a: Row, b: Row, orderKeys: readonly OrderKey[]): boolean {
  for (const { index, descending } of orderKeys) {
    const x = a[index];
    const y = b[index];
    if (precedes(x, y)) return !descending;
    if (precedes(y, x)) return descending;
  }
  return false;
}
