--fail=is a rewrite every plan needs and cannot be switched off
CREATE TABLE t (id BIGINT, k INT, x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SET 'table.optimizer.subquery-to-semi-join.enabled' = 'false';
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k);
