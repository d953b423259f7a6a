-- Two different windows in one select list, one of them inside an
-- expression: Flink's "All aggregates must be computed on the same window."
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT k, SUM(amount) OVER (PARTITION BY k ORDER BY ts) AS s,
       1 + COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n
FROM t;
