/** Orders rows by a list of order keys (values compared by {@link precedes}), as the Top-N operators sort partitions. */
import type { OrderKey } from '../../common/order-key.js';
import type { Row } from '../../common/row.js';
import { precedes } from '../../expr/aggregates/ordered-multiset.js';

/** A predicate that is true when row `a` orders strictly before row `b` under `orderKeys`. */
export function rowOrder(orderKeys: readonly OrderKey[]): (a: Row, b: Row) => boolean {
  return (a, b) => {
    for (const { index, descending } of orderKeys) {
      const x = a[index];
      const y = b[index];
      if (precedes(x, y)) return !descending;
      if (precedes(y, x)) return descending;
    }
    return false;
  };
}
