--fail=INTERSECT ALL inputs have different numbers of columns: 2 and 1
CREATE TABLE a (k INT, v STRING) WITH ('connector' = 'datagen');
SELECT k, v FROM a INTERSECT ALL SELECT k FROM a;
