CREATE TABLE bids (id BIGINT, price INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE asks (id BIGINT, price INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT b.id AS bid, a.id AS ask FROM bids AS b JOIN asks AS a ON b.price >= a.price AND b.id <> a.id;
