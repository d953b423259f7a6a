-- OVER a window name the WINDOW clause does not have.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
SELECT k, SUM(amount) OVER w2 AS s FROM t
WINDOW w AS (PARTITION BY k ORDER BY ts);
