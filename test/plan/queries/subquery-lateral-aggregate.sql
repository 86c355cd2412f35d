CREATE TABLE t (a INT, k INT, x INT) WITH ('connector' = 'datagen');
CREATE TABLE u (k INT, v INT) WITH ('connector' = 'datagen');
SELECT t.a, s.n, s.m FROM t LEFT JOIN LATERAL (SELECT COUNT(*) AS n, MAX(u.v) AS m FROM u WHERE u.k = t.k) s ON TRUE;
