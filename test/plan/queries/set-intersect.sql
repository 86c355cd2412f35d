CREATE TABLE bids (auction BIGINT, bidder STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE watchers (auction INT, person STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction, bidder FROM bids INTERSECT SELECT auction, person FROM watchers;
