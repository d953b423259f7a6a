-- Flink's STATE_TTL query hint: SELECT /*+ STATE_TTL('u' = '1 s') */ gives
-- the state of a regular join's input named u (a table or its alias) its
-- own time to live, in place of 'table.exec.state.ttl' for that side
-- (processing time, OnCreateAndWrite). weir sql runs on the virtual clock,
-- on which the paced sources' rows come at their due times, so what
-- expires is the same on every run (state_ttl.sql's tables and times).
CREATE TABLE users (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'datagen', 'number-of-rows' = '2', 'keys' = '2',
      'rows-per-second' = '10', 'seed' = '1', 'pace' = 'paced');
CREATE TABLE orders (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3), proc AS PROCTIME())
WITH ('connector' = 'datagen', 'number-of-rows' = '14', 'keys' = '2',
      'rows-per-second' = '10', 'seed' = '2', 'pace' = 'paced');

-- the users' rows dropped 1 s after they were written (at 1000 and 1100
-- ms): orders read from then on no longer meet them (as SET
-- 'table.exec.state.ttl' = '1 s' does for both sides in state_ttl.sql)
SELECT /*+ STATE_TTL('u' = '1 s') */ o.`key`, o.proc, u.`value`
FROM orders o JOIN users u ON o.`key` = u.`key`;

-- the orders' rows only: the users' stay, every order meets its user
SELECT /*+ STATE_TTL('o' = '1s') */ o.`key`, o.proc, u.`value`
FROM orders o JOIN users u ON o.`key` = u.`key`;

-- the hint wins over the session's TTL for its side; a table's own name
-- where it has no alias
SET 'table.exec.state.ttl' = '1 s';
SELECT /*+ STATE_TTL('users' = '1d') */ o.`key`, o.proc, users.`value`
FROM orders o JOIN users ON o.`key` = users.`key`;
