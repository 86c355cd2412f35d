CREATE TABLE orders (customer INT, amount BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE customers (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT c.name, t.total FROM customers AS c, (SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer) AS t
WHERE c.id = t.customer;
