CREATE TABLE a (k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT, y INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a.x, b.y FROM a, b WHERE (a.k = b.k AND a.x = 1) OR (b.k = a.k AND a.x = 2 AND b.y > 0);
