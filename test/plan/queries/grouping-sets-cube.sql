CREATE TABLE sales (region STRING, product STRING, qty INT)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE totals (region STRING, product STRING, units BIGINT, most INT) WITH ('connector' = 'blackhole');
INSERT INTO totals SELECT region, product, SUM(qty) FILTER (WHERE qty > 1), MAX(qty) FROM sales GROUP BY CUBE(region, product) HAVING COUNT(*) > 1;
