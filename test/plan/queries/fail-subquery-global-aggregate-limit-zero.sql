--fail=LIMIT 0 is not supported in a correlated subquery that aggregates without GROUP BY
CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT t.id, (SELECT MAX(u.v) FROM u WHERE u.k = t.k LIMIT 0) FROM t;
