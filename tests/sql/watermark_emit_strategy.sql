-- The same out-of-order file under both watermark emit strategies
-- (WATERMARK FOR ts AS ts: no allowed disorder). On-event, the watermark
-- follows every row: after b (2.5 s) the window [1 s, 2 s) has fired, so c
-- (1.2 s) is late and dropped, and after d (6 s) e (2.9 s) is too.
-- On-periodic (the default), with the virtual clock and a file read at
-- full speed, the watermark comes at the end of the burst: no row is late.
CREATE TABLE on_event (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/disorder.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
CREATE TABLE on_periodic (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/disorder.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-periodic');

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE on_event, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE on_periodic, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
