CREATE TABLE bids (auction BIGINT, price BIGINT, bidder STRING)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE totals (auction BIGINT, bids BIGINT, total BIGINT, top_bid BIGINT)
WITH ('connector' = 'print');
INSERT INTO totals
SELECT auction, COUNT(*), SUM(price), MAX(price) FROM bids WHERE price > 10 GROUP BY auction;
