CREATE TABLE posts (id INT, tags ARRAY<STRING>, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE tag_positions (id INT, tag STRING, pos INT) WITH ('connector' = 'blackhole');
INSERT INTO tag_positions SELECT p.id, t.tag, t.pos FROM posts AS p CROSS JOIN UNNEST(p.tags) WITH ORDINALITY AS t(tag, pos) WHERE t.pos <= 2;
