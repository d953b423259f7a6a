-- PROCTIME() as a rowtime's watermark: its type is not the rowtime's
-- (Flink's resolver compares their type roots).
CREATE TABLE readings (
  sensor STRING, celsius INT, s STRING,
  ts AS TO_TIMESTAMP(s),
  WATERMARK FOR ts AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
