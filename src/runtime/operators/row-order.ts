/**
 * Orders rows by a list of order keys, as the Top-N operators sort partitions: values compared by
 * {@link precedes}, NULL (or a missing value) before or after every value as each key says
 * (Flink's default when the query did not: first ascending, last descending; see order-key.ts).
 */
import { nullsFirstOf, type OrderKey } from '../../common/order-key.js';
import type { Row } from '../../common/row.js';
import { precedes } from '../../expr/aggregates/ordered-multiset.js';

/**
 * A predicate that is true when row `a` orders strictly before row `b` under `orderKeys`. It is a
 * strict weak order: rows equal on every key (NULL equal to NULL) order neither way.
 */
export function rowOrder(orderKeys: readonly OrderKey[]): (a: Row, b: Row) => boolean {
  const keys = orderKeys.map((key) => ({ index: key.index, descending: key.descending, nullsFirst: nullsFirstOf(key) }));
  return (a, b) => {
    for (let k = 0; k < keys.length; k++) {
      const { index, descending, nullsFirst } = keys[k]!;
      const x = a[index];
      const y = b[index];
      const xNull = x === null || x === undefined;
      const yNull = y === null || y === undefined;
      if (xNull || yNull) {
        if (xNull && yNull) continue;
        return xNull === nullsFirst;
      }
      if (precedes(x, y)) return !descending;
      if (precedes(y, x)) return descending;
    }
    return false;
  };
}

/** A comparison for `Array.prototype.sort` by `orderKeys` (negative when `a` orders first, 0 when neither does). */
export function rowComparator(orderKeys: readonly OrderKey[]): (a: Row, b: Row) => number {
  const before = rowOrder(orderKeys);
  return (a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);
}
