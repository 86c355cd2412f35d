CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM (SELECT auction, price FROM bids LIMIT 3 OFFSET 2) WHERE price > 0;
