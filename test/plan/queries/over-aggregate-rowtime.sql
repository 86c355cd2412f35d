CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction, price, AVG(price) OVER w AS avg_price, MAX(price) OVER w AS top
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW);
