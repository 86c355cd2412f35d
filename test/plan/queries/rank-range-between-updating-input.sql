CREATE TABLE orders (customer INT, region STRING, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM (
  SELECT region, customer, total, DENSE_RANK() OVER (PARTITION BY region ORDER BY total NULLS LAST) AS r
  FROM (SELECT region, customer, SUM(amount) AS total FROM orders GROUP BY region, customer)
) WHERE r BETWEEN 2 AND 5;
