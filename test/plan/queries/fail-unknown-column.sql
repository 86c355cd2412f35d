--fail=column 'pricee' does not exist
CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen');
SELECT auction, pricee FROM bids;
