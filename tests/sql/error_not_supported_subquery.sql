-- A subquery inside an expression (IN and EXISTS as WHERE's conjuncts are
-- planned: join_semi_anti.sql).
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
SELECT * FROM orders WHERE amount > 100 OR amount IN (SELECT amount FROM orders);
