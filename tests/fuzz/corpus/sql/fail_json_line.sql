CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/bad.json', 'format' = 'json');
SELECT * FROM orders;
