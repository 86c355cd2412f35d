--fail=EXCEPT column 'k' has incompatible types: INT and BOOLEAN
CREATE TABLE a (k INT, v BOOLEAN) WITH ('connector' = 'datagen');
SELECT k FROM a EXCEPT SELECT v FROM a;
