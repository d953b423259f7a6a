-- The blackhole connector takes every row and every kind and keeps none.
CREATE TABLE orders (`user` STRING, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE nothing (`user` STRING, total BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO nothing SELECT `user`, SUM(amount) FROM orders GROUP BY `user`;
INSERT INTO nothing SELECT * FROM orders;
SELECT 'done' AS status;
