-- A NOT NULL column left out of the column list would be NULL.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
CREATE TABLE strict (id BIGINT NOT NULL, v STRING) WITH ('connector' = 'blackhole');
INSERT INTO strict (v) SELECT `user` FROM orders;
