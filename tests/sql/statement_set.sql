-- unordered
-- A statement set: its INSERTs run as one job, reading the one source
-- once (Flink's source reuse); both forms, the SQL client's too.
CREATE TABLE orders (`user` STRING, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE big (`user` STRING, amount BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'big');
CREATE TABLE totals (`user` STRING, total BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'totals');

EXECUTE STATEMENT SET
BEGIN
  INSERT INTO big SELECT * FROM orders WHERE amount >= 10;
  INSERT INTO totals SELECT `user`, SUM(amount) FROM orders GROUP BY `user`;
END;

BEGIN STATEMENT SET;
INSERT INTO big SELECT `user`, amount * 100 FROM orders WHERE `user` = 'Bob';
END;
