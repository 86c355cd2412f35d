CREATE TABLE auctions (id BIGINT, seller BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE bids (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_t (id BIGINT, price BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO out_t
SELECT a.id, b.price, b.ts
FROM auctions AS a
JOIN bids AS b ON b.auction = a.id AND b.ts >= a.ts AND b.ts < a.ts + INTERVAL '1' MINUTE AND b.price > a.seller;
