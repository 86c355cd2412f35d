CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction, bidder FROM bids ORDER BY price * 2 NULLS LAST, ts DESC OFFSET 1 ROWS FETCH FIRST 2 ROWS ONLY;
