-- An aggregate without OVER inside an item beside OVER calls: refused as
-- one in an item of its own is
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT k, SUM(amount) OVER (PARTITION BY k ORDER BY ts) - MAX(amount) AS d FROM t;
