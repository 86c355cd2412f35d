CREATE TABLE orders (id BIGINT, currency STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3), WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), update_time TIMESTAMP(3), WATERMARK FOR update_time AS update_time, PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '/tmp/rates.csv', 'format' = 'csv');
SELECT o.id, o.amount * r.rate AS converted, r.update_time
FROM orders AS o
LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
