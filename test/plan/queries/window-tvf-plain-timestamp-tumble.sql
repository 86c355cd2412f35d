CREATE TABLE visits (id INT, page STRING, at TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED);
SELECT window_start, window_end, page, COUNT(*) AS visits
FROM TABLE(TUMBLE(TABLE visits, DESCRIPTOR(at), INTERVAL '1' HOUR, INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, page;
