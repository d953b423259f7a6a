-- HOP_END over a TUMBLE window: no matching group call.
CREATE TABLE clicks (
  `key` BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'seed' = '1');

SELECT hop_end(ts, INTERVAL '1' MINUTE, INTERVAL '2' MINUTE) AS we, COUNT(*) AS n
FROM clicks GROUP BY TUMBLE(ts, INTERVAL '2' MINUTE);
