CREATE TABLE a (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE c (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE d (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
WITH diff AS (SELECT k FROM a EXCEPT SELECT k FROM b)
SELECT k FROM diff UNION ALL SELECT k FROM c INTERSECT SELECT k FROM d;
