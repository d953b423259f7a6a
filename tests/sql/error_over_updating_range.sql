-- An OVER window over an updating input takes a ROWS frame: the default
-- frame (RANGE UNBOUNDED PRECEDING) and a RANGE of times are not planned
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT k, SUM(m) OVER (PARTITION BY k ORDER BY ts)
FROM (SELECT k, ts, MAX(amount) AS m FROM t GROUP BY k, ts);
