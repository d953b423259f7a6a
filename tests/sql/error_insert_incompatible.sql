-- A column that does not cast implicitly into the sink's type is refused.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT amount, `user` FROM orders;
