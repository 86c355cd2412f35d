--fail=function 'UPPPER' does not exist
CREATE TABLE t (s STRING) WITH ('connector' = 'datagen');
SELECT UPPPER(s) FROM t;
