-- A named OVER window (the WINDOW clause): several calls over one window,
-- written once (over_frames.sql has the rows and what each frame does).
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

SELECT k, amount, SUM(amount) OVER w AS s, COUNT(*) OVER w AS n, MAX(amount) OVER w AS hi
FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
