-- DESCRIBE of a name the catalog does not hold: Flink's message, with the
-- closest name.
CREATE TABLE clicks (`key` BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'datagen', 'number-of-rows' = '1');
DESCRIBE click;
