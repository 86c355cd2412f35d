/**
 * `weir demo` (what `npm start` runs): a live changelog from a generated stream of orders,
 * aggregated per customer and printed as it changes. Bounded, so it ends after a few seconds.
 */

/** The demo script; `weir demo --sql` prints it. */
export const DEMO_SQL = `-- Orders arrive at 20 per second; 200 of them in all.
CREATE TABLE orders (
  order_id BIGINT,
  customer INT,
  amount   DECIMAL(10, 2)
) WITH (
  'connector' = 'datagen',
  'rows-per-second' = '20',
  'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1',
  'fields.order_id.end' = '200',
  'fields.customer.min' = '1',
  'fields.customer.max' = '5',
  'fields.amount.min' = '1',
  'fields.amount.max' = '100'
);

-- Every change of the per-customer totals is printed: +I, then -U/+U pairs.
CREATE TABLE customer_totals (
  customer INT,
  orders   BIGINT,
  total    DECIMAL(38, 2),
  biggest  DECIMAL(10, 2)
) WITH ('connector' = 'print', 'print-identifier' = 'totals');

INSERT INTO customer_totals
SELECT customer, COUNT(*), SUM(amount), MAX(amount)
FROM orders
GROUP BY customer;
`;
