CREATE TABLE events (k INT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY ts) FROM events;
