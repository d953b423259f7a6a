-- 'table.exec.state.ttl' (Flink's StateTtlConfig on a regular join's rows
-- and a group aggregate's groups: OnCreateAndWrite, processing time). weir
-- sql runs on the virtual clock, on which the paced sources' rows come at
-- their due times, so what expires is the same on every run.
CREATE TABLE users (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'datagen', 'number-of-rows' = '2', 'keys' = '2',
      'rows-per-second' = '10', 'seed' = '1', 'pace' = 'paced');
CREATE TABLE orders (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3), proc AS PROCTIME())
WITH ('connector' = 'datagen', 'number-of-rows' = '14', 'keys' = '2',
      'rows-per-second' = '10', 'seed' = '2', 'pace' = 'paced');

-- the users' rows, read at 0 and 100 ms
SELECT `key`, `value` FROM users;

-- kept forever: every order meets its user
SELECT o.`key`, o.proc, u.`value` FROM orders o JOIN users u ON o.`key` = u.`key`;

-- SET with Flink's durations ('1 h', '3600000 ms', '1 s')
SET 'table.exec.state.ttl' = '1 h';
SET 'table.exec.state.ttl' = '3600000 ms';
SELECT o.`key`, o.proc, u.`value` FROM orders o JOIN users u ON o.`key` = u.`key`;

-- a user's row is dropped 1 s after it was written (at 1000 and 1100 ms):
-- orders read from then on no longer meet it
SET 'table.exec.state.ttl' = '1 s';
SELECT o.`key`, o.proc, u.`value` FROM orders o JOIN users u ON o.`key` = u.`key`;

-- a group not written for 250 ms starts again: +I, not -U/+U (its
-- DISTINCT's list too: the count of distinct values restarts)
SET 'table.exec.state.ttl' = '250 ms';
SELECT `key`, COUNT(*) AS n, MAX(`value`) AS top, COUNT(DISTINCT `value` / 50) AS d
FROM orders GROUP BY `key`;

SET 'table.exec.state.ttl' = '0';
SELECT `key`, COUNT(*) AS n, MAX(`value`) AS top, COUNT(DISTINCT `value` / 50) AS d
FROM orders GROUP BY `key`;
