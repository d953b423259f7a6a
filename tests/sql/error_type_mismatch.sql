CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
SELECT `user` FROM orders WHERE amount > 'x';
