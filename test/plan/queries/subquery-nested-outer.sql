CREATE TABLE t (id BIGINT, k INT, j INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE w (id BIGINT, j INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.v IN (SELECT w.v FROM w WHERE w.j = t.j));
