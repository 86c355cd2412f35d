CREATE TABLE a (k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT, y INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE c (x INT, z INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a.x, b.y, c.z FROM a CROSS JOIN b JOIN c ON c.x = a.x WHERE a.k = b.k AND b.y < c.z;
