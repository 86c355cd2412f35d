CREATE TABLE a (k INT, x STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT, y STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a.x, b.y FROM a LEFT JOIN b ON a.k IS NOT DISTINCT FROM b.k AND a.x <> b.y;
