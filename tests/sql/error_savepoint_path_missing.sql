-- A query restores from 'execution.savepoint.path' before anything runs.
SET 'execution.savepoint.path' = 'no-such-savepoint/chk-3';
CREATE TABLE clicks (`key` BIGINT, `value` BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
SELECT `key`, COUNT(*) FROM clicks GROUP BY `key`;
