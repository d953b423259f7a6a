-- A NATURAL join is Flink SQL that weir does not plan: not supported, where it
-- stands (joins ON an equality are planned: join_inner.sql).
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
SELECT * FROM orders o NATURAL JOIN orders p;
