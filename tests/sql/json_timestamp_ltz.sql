-- A JSON TIMESTAMP_LTZ column reads what Flink's json format writes: UTC
-- with a 'Z', "yyyy-MM-dd HH:mm:ss[.fff]Z" (its SQL standard, the default)
-- or "yyyy-MM-ddTHH:mm:ss[.fff]Z" (its ISO-8601 standard); weir reads both,
-- and the form without the Z (as for TIMESTAMP). A rowtime of that type
-- drives a window.
CREATE TABLE e (id BIGINT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/ltz.json', 'format' = 'json');

SELECT id, ts FROM e;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
