CREATE TABLE l (k INT, region STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE r (k BIGINT, region STRING, w INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT *, l.k AS lk FROM l FULL JOIN r USING (k, region);
