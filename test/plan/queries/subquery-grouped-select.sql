CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT k, COUNT(*) AS n, (SELECT MAX(v) FROM u) AS top FROM t WHERE x = ANY (SELECT v FROM u) GROUP BY k;
