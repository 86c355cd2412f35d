CREATE TABLE orders (id BIGINT, customer INT, amount DECIMAL(10, 2)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE big_orders (id BIGINT, amount DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO big_orders
SELECT o.id, o.amount
FROM (SELECT AVG(amount) AS average FROM orders) AS s
JOIN (SELECT id, SUM(amount) AS amount FROM orders GROUP BY id) AS o ON s.average * 2 <= o.amount + 1;
