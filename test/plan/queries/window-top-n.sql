CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE top_bids (window_start TIMESTAMP(3), window_end TIMESTAMP(3), auction BIGINT, price BIGINT, rn BIGINT)
WITH ('connector' = 'blackhole');
INSERT INTO top_bids
SELECT window_start, window_end, auction, price, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn <= 3;
