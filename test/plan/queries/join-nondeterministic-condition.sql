CREATE TABLE a (k INT, x DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT, y DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a.x, b.y FROM a, b
WHERE ((a.k = b.k AND RAND() < 0.5) OR (b.k = a.k AND RAND() < 0.5)) AND a.x = b.y + RAND();
