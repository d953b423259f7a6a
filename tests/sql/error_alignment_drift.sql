-- Flink's watermark alignment options take durations above 0.
CREATE TABLE jumpy (`key` BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'partitions' = '2',
      'scan.watermark.alignment.max-drift' = 'soon');
SELECT * FROM jumpy;
