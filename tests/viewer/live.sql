-- tests/viewer/test-live.mjs: a query on the system clock that runs about 12 s, served
-- (weir sql --serve) while the browser watches it: three partitions, the
-- third quiet from 2 s to 4 s, 1 s tumbling windows.
SET 'weir.clock' = 'system';
CREATE TABLE clicks (
  `key` BIGINT,
  `value` BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '200' MILLISECOND
) WITH ('connector' = 'datagen', 'duration' = '12 s', 'keys' = '5', 'partitions' = '3',
        'rows-per-second' = '200', 'pace' = 'paced', 'seed' = '7',
        'idle-partitions' = '2@2 s-4 s');
SELECT `key`, TUMBLE_START(ts, INTERVAL '1' SECOND) AS ws, COUNT(*) AS n
FROM clicks
GROUP BY TUMBLE(ts, INTERVAL '1' SECOND), `key`;
