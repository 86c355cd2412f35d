CREATE TABLE bids (auction BIGINT, bidder STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE watchers (auction BIGINT, person STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction FROM bids INTERSECT ALL SELECT auction FROM watchers WHERE person <> 'nobody';
