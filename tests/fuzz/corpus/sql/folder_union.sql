-- unordered
-- A folder is one partition a file (_SUCCESS is skipped); two tables read
-- at parallelism 2, and a UNION ALL.
SET 'parallelism.default' = '2';
CREATE TABLE parts (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/parts', 'format' = 'csv');

SELECT k, SUM(v) AS s FROM parts GROUP BY k;

SELECT k, v FROM parts WHERE v > 4 UNION ALL SELECT k, v * 100 FROM parts WHERE v < 2;

SELECT window_start, k, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE parts, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
