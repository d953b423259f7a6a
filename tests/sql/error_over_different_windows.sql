-- Two different OVER windows in one select list.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT k, SUM(amount) OVER (PARTITION BY k ORDER BY ts),
       COUNT(*) OVER (ORDER BY ts) FROM t;
