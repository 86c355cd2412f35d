--fail=a FULL JOIN with UNNEST is not supported
CREATE TABLE posts (id INT, tags ARRAY<STRING>) WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE sink (id INT, tag STRING) WITH ('connector' = 'blackhole');
INSERT INTO sink SELECT id, tag FROM posts FULL JOIN UNNEST(tags) AS t(tag) ON TRUE;
