--fail=GROUPING SETS, ROLLUP and CUBE cannot be combined with a group window
CREATE TABLE bids (item STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE totals (item STRING, total BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO totals SELECT item, SUM(price) FROM bids GROUP BY TUMBLE(ts, INTERVAL '1' SECOND), ROLLUP(item);
