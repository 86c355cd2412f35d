CREATE TABLE a (k INT, d INT, x STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k BIGINT, d DECIMAL(6, 2), y STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a.x, b.y FROM a JOIN b ON a.k = b.k AND a.d = b.d;
