CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE sessions (bidder BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), bids BIGINT, top BIGINT, spend BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO sessions
SELECT bidder, window_start, window_end, COUNT(*), MAX(price), SUM(price) FILTER (WHERE auction > 5)
FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY bidder, window_start, window_end;
