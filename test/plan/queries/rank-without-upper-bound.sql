CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM (SELECT auction, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price) AS rn FROM bids) WHERE rn > 2;
