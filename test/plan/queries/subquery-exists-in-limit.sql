CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT t.id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k ORDER BY u.v LIMIT 1) AND t.x NOT IN (SELECT u.v FROM u WHERE u.k = t.k LIMIT 3);
