CREATE TABLE out_t (k INT, v BIGINT) WITH ('connector' = 'print');
INSERT INTO out_t
SELECT k, v * 2 FROM (
  SELECT * FROM (VALUES (1, CAST(10 AS BIGINT)), (2, 20)) AS a(k, v)
  UNION ALL
  SELECT k + 10, v FROM (VALUES (3, CAST(30 AS BIGINT))) AS b(k, v)
) WHERE v > 15;
