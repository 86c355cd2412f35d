CREATE TABLE bids (auction BIGINT, bidder BIGINT, price BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY MOD(auction, 10) ORDER BY price / 100 DESC NULLS FIRST, ts) AS rn FROM bids
) WHERE rn > 1 AND rn <= 3;
