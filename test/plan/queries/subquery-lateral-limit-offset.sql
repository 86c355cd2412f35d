CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT t.id, s.v FROM t LEFT JOIN LATERAL (SELECT u.v FROM u WHERE u.k = t.k ORDER BY u.v NULLS LAST, u.id LIMIT 2 OFFSET 1) s ON TRUE;
