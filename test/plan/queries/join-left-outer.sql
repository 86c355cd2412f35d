CREATE TABLE auctions (id BIGINT, seller BIGINT, category INT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_t (id BIGINT, bids BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO out_t
SELECT a.id, COUNT(b.price)
FROM auctions AS a
LEFT JOIN bids AS b ON b.auction = a.id AND b.price > a.price AND b.price > 5
WHERE a.category = 10 AND (b.price IS NULL OR b.price < 1000)
GROUP BY a.id;
