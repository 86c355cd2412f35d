CREATE TABLE orders (customer INT, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE refunds (customer INT, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer
EXCEPT ALL
SELECT customer, amount FROM refunds;
