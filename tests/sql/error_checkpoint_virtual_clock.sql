-- Checkpoints are taken in processing time: the virtual clock cannot take them.
SET 'weir.clock' = 'virtual';
SET 'execution.checkpointing.interval' = '10 s';
SET 'state.checkpoints.dir' = 'ckpt-never-made';
CREATE TABLE clicks (`key` BIGINT, `value` BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');
SELECT `key`, COUNT(*) FROM clicks GROUP BY `key`;
