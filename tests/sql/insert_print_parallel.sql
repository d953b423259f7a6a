-- unordered
-- The print connector at 'sink.parallelism' 2: each line starts with the
-- identifier, ':' and the subtask from 1 (Flink's PrintSinkOutputWriter),
-- or the subtask alone without an identifier.
CREATE TABLE orders (`user` STRING, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE two (`user` STRING, amount BIGINT)
WITH ('connector' = 'print', 'print-identifier' = 'p', 'sink.parallelism' = '2');
CREATE TABLE bare (amount BIGINT) WITH ('connector' = 'print', 'sink.parallelism' = '2');
SET 'parallelism.default' = '1';
INSERT INTO two SELECT * FROM orders WHERE `user` = 'Alice';
INSERT INTO bare SELECT amount FROM orders WHERE `user` = 'Bob';
