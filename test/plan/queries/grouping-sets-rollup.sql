CREATE TABLE sales (region STRING, product STRING, qty INT)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE totals (region STRING, product STRING, units BIGINT, g BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO totals SELECT region, product, SUM(qty), GROUPING(region, product) FROM sales GROUP BY ROLLUP(region, product);
