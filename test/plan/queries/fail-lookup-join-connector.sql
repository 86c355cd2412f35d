--fail=table 'gen' (connector 'datagen') cannot be looked up
CREATE TABLE bid (auction BIGINT, price BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE gen (id BIGINT, name VARCHAR) WITH ('connector' = 'datagen');
SELECT * FROM (SELECT *, PROCTIME() AS p FROM bid) b JOIN gen FOR SYSTEM_TIME AS OF b.p ON b.auction = gen.id;
