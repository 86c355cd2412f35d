CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE windowed (auction BIGINT, price BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP(3))
WITH ('connector' = 'blackhole');
INSERT INTO windowed
SELECT auction, price, window_start, window_end, window_time
FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
WHERE price > 10;
