--fail=an interval join needs insert-only inputs, but an input produces updates
CREATE TABLE orders (id BIGINT, customer BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'postgres-cdc', 'table-name' = 'orders');
CREATE TABLE payments (order_id BIGINT, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT o.id, p.amount FROM orders AS o JOIN payments AS p
ON o.id = p.order_id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '1' HOUR;
