CREATE TABLE items (id BIGINT, price INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE sizes (size STRING, factor INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT i.id, s.size, i.price * s.factor AS price FROM items AS i CROSS JOIN sizes AS s;
