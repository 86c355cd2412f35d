CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE customers (id INT, nation INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE nations (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT o.id, c.name, n.name
FROM orders AS o, customers AS c, nations AS n
WHERE o.customer = c.id AND c.nation = n.id AND o.amount > 10 AND n.name <> c.name;
