--fail=a GROUP BY over a SESSION window must group by exactly its PARTITION BY columns (bidder) besides window_start and window_end
CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT bidder, auction, window_start, window_end, COUNT(*)
FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '30' SECOND))
GROUP BY bidder, auction, window_start, window_end;
