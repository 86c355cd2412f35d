CREATE TABLE bids (auction BIGINT, price INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE reserves (price INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT b.auction, b.price
FROM bids AS b, (SELECT MAX(price) AS top FROM reserves) AS r
WHERE b.price > r.top;
