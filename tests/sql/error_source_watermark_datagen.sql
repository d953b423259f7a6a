-- SOURCE_WATERMARK() on weir's generator: refused as on files (the generator
-- emits rows, no watermarks of its own).
CREATE TABLE clicks (`key` BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK())
WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT COUNT(*) FROM clicks;
