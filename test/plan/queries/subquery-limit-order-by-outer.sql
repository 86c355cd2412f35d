CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT t.id, s.id AS nearest FROM t, LATERAL (SELECT u.id FROM u WHERE u.k = t.k ORDER BY ABS(u.v - t.x), u.id LIMIT 1) s;
