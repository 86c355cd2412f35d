CREATE TABLE bids (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_t (auction BIGINT, bid BIGINT, other BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_t
SELECT b.auction, b.price, c.price
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) b
JOIN TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '20' SECOND)) c
ON b.auction = c.auction AND b.window_start = c.window_start AND b.window_end = c.window_end;
