CREATE TABLE persons (id BIGINT, name STRING, state STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE auctions (id BIGINT, seller BIGINT, category INT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE out_t (name STRING, id BIGINT, price BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_t
SELECT p.name, a.id, b.price
FROM auctions AS a
JOIN persons AS p ON a.seller = p.id AND p.name <> 'x'
JOIN bids AS b ON b.auction = a.id
WHERE a.category = 10 AND (p.state = 'OR' OR p.state = 'CA') AND b.price > a.price AND b.price > 5
  AND a.id < UNIX_TIMESTAMP();
