CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT k, SUM(x) FROM t GROUP BY k HAVING SUM(x) > (SELECT AVG(v) FROM u) AND k IN (SELECT k FROM u);
