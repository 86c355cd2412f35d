CREATE TABLE orders (customer INT, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer
ORDER BY total DESC NULLS FIRST, customer LIMIT 3 OFFSET 2;
