CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE asks (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE matched (auction BIGINT, bid BIGINT, ask BIGINT, window_start TIMESTAMP(3))
WITH ('connector' = 'blackhole');
INSERT INTO matched
SELECT b.auction, b.price, a.price, b.window_start
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND)) b
JOIN TABLE(TUMBLE(TABLE asks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) a
ON b.auction = a.auction AND b.window_start = a.window_start AND b.window_end = a.window_end
WHERE b.price >= a.price;
