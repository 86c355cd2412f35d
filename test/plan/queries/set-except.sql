CREATE TABLE customers (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE blocked (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE allowed (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO allowed
SELECT id FROM customers EXCEPT SELECT id FROM blocked;
