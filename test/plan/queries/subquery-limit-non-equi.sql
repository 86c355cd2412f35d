CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT t.id, (SELECT u.id FROM u WHERE u.v < t.x ORDER BY u.v DESC, u.id LIMIT 1) AS below FROM t;
