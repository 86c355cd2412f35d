/**
 * A query over materialized views runs in Postgres; before it goes there, every ORDER BY item
 * without NULLS FIRST / LAST — of the query, its subqueries and its OVER windows — gets Flink's
 * default written out, and text weir cannot parse goes as written.
 */
import { describe, expect, it } from 'vitest';
import { withFlinkNullOrder } from '../../src/engine/postgres-null-order.js';

describe("Flink's null order written out for Postgres", () => {
  it('adds NULLS FIRST to ascending and NULLS LAST to descending items, and leaves explicit ones alone', () => {
    expect(withFlinkNullOrder('SELECT a, b FROM v ORDER BY a, b DESC LIMIT 3')).toBe('SELECT a, b FROM v ORDER BY a NULLS FIRST, b DESC NULLS LAST LIMIT 3');
    expect(withFlinkNullOrder('SELECT a FROM v ORDER BY a ASC NULLS LAST, 1 DESC NULLS FIRST')).toBe('SELECT a FROM v ORDER BY a ASC NULLS LAST, 1 DESC NULLS FIRST');
    expect(withFlinkNullOrder('SELECT a FROM v')).toBe('SELECT a FROM v');
  });

  it('reaches subqueries, CTEs and OVER windows', () => {
    expect(withFlinkNullOrder('WITH w AS (SELECT * FROM v ORDER BY b DESC LIMIT 5) SELECT a, ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) AS rn FROM w ORDER BY rn')).toBe(
      'WITH w AS (SELECT * FROM v ORDER BY b DESC NULLS LAST LIMIT 5) SELECT a, ROW_NUMBER() OVER (PARTITION BY a ORDER BY b NULLS FIRST) AS rn FROM w ORDER BY rn NULLS FIRST',
    );
  });

  it("sends text weir's grammar does not accept as written", () => {
    const postgresOnly = "SELECT a FROM v ORDER BY a USING > LIMIT 1";
    expect(withFlinkNullOrder(postgresOnly)).toBe(postgresOnly);
  });
});
