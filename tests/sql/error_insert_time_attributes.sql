-- The query schema of Flink's message marks its time attributes: the rowtime
-- *ROWTIME*, a processing-time attribute *PROCTIME*.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3), proc AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
CREATE TABLE out (`user` STRING, amount BIGINT) WITH ('connector' = 'print');
INSERT INTO out SELECT `user`, ts, proc FROM orders;
