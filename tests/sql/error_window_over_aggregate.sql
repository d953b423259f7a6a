CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE VIEW totals AS SELECT `user`, SUM(amount) AS s, MAX(ts) AS ts FROM orders GROUP BY `user`;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE totals, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;
