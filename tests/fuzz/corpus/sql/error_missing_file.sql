CREATE TABLE orders (`user` STRING, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/missing.json', 'format' = 'json');
SELECT * FROM orders;
