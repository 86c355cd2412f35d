--fail=column 'bids.price' must appear in the GROUP BY clause or be used in an aggregate function
CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen');
SELECT auction, price FROM bids GROUP BY auction;
