CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT id, (SELECT COUNT(v) FROM u WHERE u.k = t.k AND u.v > t.x) AS n FROM t;
