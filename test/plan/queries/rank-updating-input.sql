CREATE TABLE orders (customer INT, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM (
  SELECT customer, total, DENSE_RANK() OVER (ORDER BY total DESC) AS r
  FROM (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer)
) WHERE r <= 3;
