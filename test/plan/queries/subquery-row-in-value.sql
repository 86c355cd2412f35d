CREATE TABLE t (id INT, a INT, b INT) WITH ('connector' = 'datagen');
CREATE TABLE u (x INT, y INT) WITH ('connector' = 'datagen');
SELECT id, (a, b) IN (SELECT x, y FROM u) AS found FROM t;
