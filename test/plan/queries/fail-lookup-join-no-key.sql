--fail=the ON condition of a lookup join must equate a column of the lookup table 'side'
CREATE TABLE bid (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE side (id BIGINT, name VARCHAR) WITH ('connector' = 'filesystem', 'path' = '/tmp/side.csv', 'format' = 'csv');
SELECT * FROM (SELECT *, PROCTIME() AS p FROM bid) b JOIN side FOR SYSTEM_TIME AS OF b.p ON b.auction > side.id;
