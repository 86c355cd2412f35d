CREATE TABLE a (k INT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE b (k INT, v STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT k, v FROM a EXCEPT ALL SELECT k, v FROM b ORDER BY k DESC LIMIT 3;
