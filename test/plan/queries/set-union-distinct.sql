CREATE TABLE a (k INT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE c (k BIGINT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT k, v FROM a UNION (SELECT k, v FROM b UNION ALL SELECT k, v FROM c) UNION SELECT k + 1, v FROM a;
