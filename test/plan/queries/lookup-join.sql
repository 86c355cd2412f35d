CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE side_input (key BIGINT, `value` VARCHAR) WITH ('connector' = 'filesystem', 'path' = '/tmp/side_input.csv', 'format' = 'csv');
SELECT B.auction, B.price, S.`value`
FROM (SELECT *, PROCTIME() AS p_time FROM bid) B
LEFT JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON MOD(B.auction, 10000) = S.key AND S.key < B.price;
