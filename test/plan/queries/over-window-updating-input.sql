CREATE TABLE orders (customer INT, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT customer, total, RANK() OVER (ORDER BY total DESC) AS place, LAG(total) OVER (ORDER BY total DESC, customer) AS ahead
FROM (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer);
