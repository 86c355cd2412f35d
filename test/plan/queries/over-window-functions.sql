CREATE TABLE scores (id INT, team STRING, pts INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT id, team,
  ROW_NUMBER() OVER w AS rn,
  LAG(pts) OVER w AS prev_pts,
  LEAD(pts, 2, 0) OVER w AS next2,
  NTILE(4) OVER w AS quarter,
  PERCENT_RANK() OVER w AS pr,
  CUME_DIST() OVER w AS cd,
  FIRST_VALUE(pts) OVER w AS first_pts,
  LAST_VALUE(pts) OVER (PARTITION BY team ORDER BY pts DESC, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS last_near,
  SUM(pts) OVER w AS running
FROM scores
WINDOW w AS (PARTITION BY team ORDER BY pts DESC, id);
