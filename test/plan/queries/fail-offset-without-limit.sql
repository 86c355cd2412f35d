--fail=OFFSET without LIMIT is not supported in streaming queries
CREATE TABLE bids (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT auction FROM bids ORDER BY price OFFSET 3;
