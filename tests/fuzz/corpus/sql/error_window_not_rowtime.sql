CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
SELECT COUNT(*) FROM orders GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE);
