CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE orders (user_id BIGINT, amount BIGINT, ots TIMESTAMP(3), WATERMARK FOR ots AS ots - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT TUMBLE_START(ots, INTERVAL '1' MINUTE) AS ws, COUNT(*) AS n, SUM(amount) AS total
FROM (SELECT c.user_id, o.amount, o.ots FROM clicks AS c JOIN orders AS o ON c.user_id = o.user_id WHERE o.ots > c.ts AND o.ots <= c.ts + INTERVAL '10' MINUTE)
GROUP BY TUMBLE(ots, INTERVAL '1' MINUTE);
