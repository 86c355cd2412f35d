CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_t (window_start TIMESTAMP(3), auction BIGINT, bids BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO out_t
SELECT window_start, auction, COUNT(*)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE price > 10
GROUP BY auction, window_start, window_end;
