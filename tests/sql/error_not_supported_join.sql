-- A join is Flink SQL that weir does not run yet: not supported, where it stands.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
SELECT * FROM orders o JOIN out p ON o.`user` = p.`user`;
