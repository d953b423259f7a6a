-- OVER ordered by a column that is not a time attribute (ts has no watermark here).
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
SELECT `user`, SUM(amount) OVER (PARTITION BY `user` ORDER BY ts) FROM orders;
