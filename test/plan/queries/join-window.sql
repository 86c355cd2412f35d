CREATE TABLE persons (id BIGINT, name STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE auctions (seller BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '4' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT P.id, P.name, P.starttime
FROM (
  SELECT id, name, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE persons, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY id, name, window_start, window_end
) P
LEFT JOIN (
  SELECT seller, window_start AS starttime, window_end AS endtime
  FROM TABLE(TUMBLE(TABLE auctions, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY seller, window_start, window_end
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime;
