-- OVER ordered by a column that is not the rowtime, with a bounded frame.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT k, SUM(amount) OVER (PARTITION BY k ORDER BY amount ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t;
