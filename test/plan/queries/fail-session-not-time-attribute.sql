--fail=the time column 'ts' of SESSION must be an event-time attribute
CREATE TABLE bids (bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE VIEW latest AS SELECT bidder, MAX(ts) AS ts FROM bids GROUP BY bidder;
SELECT bidder, COUNT(*), SESSION_END(ts, INTERVAL '10' SECOND)
FROM latest
GROUP BY bidder, SESSION(ts, INTERVAL '10' SECOND);
