CREATE TABLE sales (region STRING, product STRING, qty INT)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE totals (region STRING, units BIGINT, gid BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO totals SELECT region, SUM(qty), GROUP_ID() FROM sales GROUP BY GROUPING SETS ((region), (region), ());
