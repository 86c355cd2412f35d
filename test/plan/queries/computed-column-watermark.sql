CREATE TABLE events (
  id BIGINT,
  payload ROW<name STRING, ts TIMESTAMP(3)>,
  ts AS payload.ts,
  name_upper AS UPPER(payload.name),
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
CREATE TABLE sink_t (id BIGINT, name_upper STRING, ts TIMESTAMP(3)) WITH ('connector' = 'blackhole');
INSERT INTO sink_t SELECT id, name_upper, ts FROM events WHERE id IS NOT NULL;
