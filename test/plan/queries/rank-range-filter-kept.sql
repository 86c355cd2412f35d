CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction, bidder FROM (
  SELECT auction, bidder, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC NULLS FIRST) AS rn FROM bids
) WHERE rn <= 2 AND price > 10 AND rn >= 1;
