CREATE TABLE bids (auction BIGINT, price BIGINT)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE VIEW per_auction AS SELECT auction, COUNT(*) AS cnt FROM bids GROUP BY auction;
CREATE TABLE histogram (cnt BIGINT, auctions BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO histogram SELECT cnt, COUNT(*) FROM per_auction GROUP BY cnt;
