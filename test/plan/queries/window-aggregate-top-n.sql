CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE hot (window_start TIMESTAMP(3), window_end TIMESTAMP(3), auction BIGINT, bids BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO hot
SELECT window_start, window_end, auction, bids FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY bids DESC) AS rn
  FROM (
    SELECT window_start, window_end, auction, COUNT(*) AS bids
    FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, auction
  )
) WHERE rn <= 2;
