CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE orders (user_id BIGINT, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT c.user_id, c.url, o.amount
FROM clicks AS c JOIN orders AS o ON c.user_id = o.user_id
WHERE o.ts > c.ts AND o.ts <= c.ts + INTERVAL '10' MINUTE AND o.amount > 100 AND c.url <> CAST(o.amount AS STRING);
