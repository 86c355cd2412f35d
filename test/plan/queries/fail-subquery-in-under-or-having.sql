--fail=IN (subquery) is not supported inside another expression of HAVING
CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT k, COUNT(*) FROM t GROUP BY k HAVING COUNT(*) > 1 OR k IN (SELECT k FROM u);
