-- unordered
-- An idle-partition experiment from SQL: partition 1 goes quiet after 1 s of
-- event time. Without an idle timeout its last watermark holds the windows
-- back until the end of input; with one, the windows fire as partition 0
-- goes on. The results are the same rows; the capture shows when they came.
SET 'parallelism.default' = '2';
CREATE TABLE quiet (
  `key` BIGINT, ts TIMESTAMP(3), partition_id INT,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'datagen', 'partitions' = '2', 'keys' = '1',
        'rows-per-second' = '5', 'duration' = '4 s', 'pace' = 'paced',
        'idle-partitions' = '1@1 s-', 'scan.watermark.idle-timeout' = '500 ms');
SELECT window_start, partition_id, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE quiet, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, partition_id;
