-- A processing-time attribute cannot carry a watermark.
CREATE TABLE readings (
  sensor STRING, celsius INT, s STRING,
  proc AS PROCTIME(),
  WATERMARK FOR proc AS proc - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
