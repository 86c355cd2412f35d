CREATE TABLE posts (id INT, tags ARRAY<STRING>, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE tag_counts (tag STRING, n BIGINT, PRIMARY KEY (tag) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO tag_counts SELECT tag, COUNT(*) FROM posts LEFT JOIN UNNEST(tags) AS t(tag) ON tag <> 'spam' GROUP BY tag;
