-- ROW_NUMBER() with no filter on its number around it.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM t;
