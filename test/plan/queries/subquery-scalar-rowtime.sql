CREATE TABLE ev (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE tt (k INT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');
SELECT id, ts, (SELECT COUNT(*) FROM tt WHERE tt.ts = ev.ts) AS n FROM ev WHERE EXISTS (SELECT 1 FROM tt WHERE tt.k = ev.id);
