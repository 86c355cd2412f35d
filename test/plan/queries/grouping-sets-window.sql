CREATE TABLE bids (item STRING, shop STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE totals (window_start TIMESTAMP(3), item STRING, shop STRING, total BIGINT, g BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO totals SELECT window_start, item, shop, SUM(price), GROUPING(item, shop) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, ROLLUP(item, shop);
