-- A window auxiliary must name the GROUP BY window's function and arguments:
-- Flink (Calcite) refuses TUMBLE_START of 1-minute windows over 2-minute
-- ones, which would otherwise print the 2-minute windows' starts.
CREATE TABLE clicks (
  `key` BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'seed' = '1');

SELECT TUMBLE_START(ts, INTERVAL '1' minute) AS ws, COUNT(*) AS n
FROM clicks GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE);

SELECT `key`, TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws, COUNT(*) AS n
FROM clicks GROUP BY `key`, TUMBLE(ts, INTERVAL '2' MINUTE);
