CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE sessions (bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO sessions
SELECT B.bidder, count(*) AS bid_count, SESSION_START(B.ts, INTERVAL '10' SECOND), SESSION_END(B.ts, INTERVAL '10' SECOND)
FROM bids B
WHERE B.price > 10
GROUP BY B.bidder, SESSION(B.ts, INTERVAL '10' SECOND);
