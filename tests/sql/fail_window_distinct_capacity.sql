-- A window's COUNT(DISTINCT x) keeps its values in the window's
-- accumulator, 16384 bytes of them (2048 BIGINTs; here values of 8200
-- bytes: one): one distinct value more fails the job, never a wrong count.
CREATE TABLE r (k STRING, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');
SELECT window_start, COUNT(DISTINCT CAST(s AS VARCHAR(8196)))
FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
