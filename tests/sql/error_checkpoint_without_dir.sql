-- An interval without 'state.checkpoints.dir' is refused at the query, said at the SET.
SET 'execution.checkpointing.interval' = '10 s';
CREATE TABLE clicks (`key` BIGINT, `value` BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
SELECT `key`, COUNT(*) FROM clicks GROUP BY `key`;
