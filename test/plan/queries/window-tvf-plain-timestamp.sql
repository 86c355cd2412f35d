CREATE TABLE visits (id INT, page STRING, at TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED);
SELECT window_start, window_end, page, COUNT(*) AS visits
FROM TABLE(HOP(TABLE visits, DESCRIPTOR(at), INTERVAL '15' MINUTE, INTERVAL '1' HOUR, INTERVAL '5' MINUTE))
WHERE page <> 'admin'
GROUP BY window_start, window_end, page;
