-- A statement set holds INSERTs only.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
EXECUTE STATEMENT SET BEGIN INSERT INTO out SELECT `user`, amount FROM orders; SELECT * FROM orders; END;
