CREATE TABLE orders (id BIGINT, customer INT, amount INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE customers (customer BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM orders NATURAL JOIN customers;
