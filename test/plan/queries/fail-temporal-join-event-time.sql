--fail='side' is not a versioned table: it has no event-time attribute
CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
CREATE TABLE side (id BIGINT, name VARCHAR) WITH ('connector' = 'filesystem', 'path' = '/tmp/side.csv', 'format' = 'csv');
SELECT * FROM bid b JOIN side FOR SYSTEM_TIME AS OF b.ts ON b.auction = side.id;
