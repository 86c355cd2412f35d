CREATE TABLE scores (id INT, team STRING, pts INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT id,
  RANK() OVER (PARTITION BY UPPER(team) ORDER BY pts * 2 NULLS LAST) AS r,
  LAG(team, 1, 'none') OVER (ORDER BY id) AS prev_team,
  COUNT(*) OVER (PARTITION BY UPPER(team)) AS team_size
FROM scores;
