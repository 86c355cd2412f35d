CREATE TABLE clicks (user_id INT, url STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
WITH visits AS (SELECT DISTINCT user_id, url FROM clicks)
SELECT user_id, COUNT(url) AS pages, COUNT(DISTINCT url) AS distinct_pages FROM visits GROUP BY user_id;
