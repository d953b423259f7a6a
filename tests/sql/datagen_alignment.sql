-- unordered
-- Watermark alignment from SQL, with Flink's options: partition 0's rows jump
-- an hour ahead after 2 s (an idle span, skipped at once), like a reader that
-- went on to a later file. With a max drift of 5 s it pauses there until
-- partition 1 has come within 5 s of it, so the windows never hold more than
-- that of it. The rows are the ones read without alignment, none late: it
-- changes when they are read, not what is read.
SET 'parallelism.default' = '2';
CREATE TABLE jumpy (
  `key` BIGINT, ts TIMESTAMP(3), partition_id INT,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'datagen', 'partitions' = '2', 'keys' = '1',
        'rows-per-second' = '1', 'duration' = '3700 s',
        'idle-partitions' = '0@2 s-3600 s',
        'scan.watermark.alignment.group' = 'readers',
        'scan.watermark.alignment.max-drift' = '5 s',
        'scan.watermark.alignment.update-interval' = '100 ms');
SELECT window_start, partition_id, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE jumpy, DESCRIPTOR(ts), INTERVAL '30' MINUTE))
GROUP BY window_start, window_end, partition_id;
