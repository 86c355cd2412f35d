CREATE TABLE readings (sensor STRING, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE bands (name STRING, lo INT, hi INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT r.sensor, b.name, n
FROM (SELECT sensor, v, COUNT(*) AS n FROM readings GROUP BY sensor, v) AS r
FULL JOIN bands AS b ON r.v BETWEEN b.lo AND b.hi;
