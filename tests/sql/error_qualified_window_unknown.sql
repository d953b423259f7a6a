-- A group window's time column by a qualifier that names no source
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json');
SELECT B.k, COUNT(*) FROM t B GROUP BY B.k, TUMBLE(C.ts, INTERVAL '1' SECOND);
