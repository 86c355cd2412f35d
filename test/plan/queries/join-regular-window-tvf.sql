CREATE TABLE ev (id BIGINT, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE dim (k BIGINT, name STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE VIEW joined AS SELECT ev.id, ev.ts, dim.name FROM ev JOIN dim ON ev.k = dim.k;
SELECT window_start, window_end, name, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE joined, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, name;
