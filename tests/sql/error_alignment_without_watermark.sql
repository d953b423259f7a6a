-- Watermark alignment aligns watermarks: a table without one cannot ask for it.
CREATE TABLE plain (`key` BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'partitions' = '2',
      'scan.watermark.alignment.group' = 'g');
SELECT * FROM plain;
