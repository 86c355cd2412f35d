CREATE TABLE bids (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE auctions (id BIGINT, category INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_t (category INT, window_end TIMESTAMP(3), bids BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_t
SELECT a.category, w.window_end, w.bids
FROM (
  SELECT auction, window_start, window_end, COUNT(*) AS bids
  FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end
) w
JOIN auctions a ON w.auction = a.id AND a.category > 1;
