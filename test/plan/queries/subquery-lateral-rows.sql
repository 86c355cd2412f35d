CREATE TABLE t (a INT, k INT, x INT) WITH ('connector' = 'datagen');
CREATE TABLE u (k INT, v INT) WITH ('connector' = 'datagen');
SELECT t.a, s.p FROM t, LATERAL (SELECT t.x * u.v AS p FROM u WHERE u.k = t.k AND u.v > t.x) s;
