CREATE TABLE t (id BIGINT, k INT, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE u (id BIGINT, k INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE s (id BIGINT, k INT, x INT, PRIMARY KEY (id, k) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO s SELECT id, k, x FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k) AND x NOT IN (SELECT v FROM u);
