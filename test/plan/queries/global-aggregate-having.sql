CREATE TABLE t (a INT, b DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
SELECT COUNT(*) AS n, AVG(b) AS avg_b, MIN(a) FILTER (WHERE b > 0.5) AS min_a FROM t HAVING COUNT(*) > 1;
