CREATE TABLE bids (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction, price, LAG(price) OVER w AS prev, LAG(price, 3, 0) OVER w AS prev3, AVG(price) OVER w AS avg_price
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 5 PRECEDING AND CURRENT ROW);
