-- SESSION_END with another gap than the GROUP BY's SESSION: refused as Flink
-- does (Calcite's check of an auxiliary group function).
CREATE TABLE clicks (
  `key` BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'seed' = '1');

SELECT `key`, SESSION_END(ts, INTERVAL '1' MINUTE) AS we, COUNT(*) AS n
FROM clicks GROUP BY SESSION(ts, INTERVAL '10' MINUTE), `key`;
