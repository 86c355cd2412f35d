--fail=the time column 'ts' of TUMBLE must be an event-time attribute, but is TIMESTAMP(3) (the regular join of ev and dim made it one
CREATE TABLE ev (id BIGINT, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE dim (k BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE), COUNT(*) FROM (SELECT ev.id, ev.ts, dim.name FROM ev JOIN dim ON ev.k = dim.k) GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE);
