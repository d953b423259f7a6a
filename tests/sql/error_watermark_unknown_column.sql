-- WATERMARK FOR a column the table does not declare: Flink's message, with
-- the columns it has (computed ones too).
CREATE TABLE readings (
  sensor STRING, celsius INT, s STRING,
  ts AS TO_TIMESTAMP(s),
  WATERMARK FOR tss AS tss - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
