-- unordered
-- A partitioned table read from a folder Flink's filesystem sink wrote:
-- its partition columns come from the folders' names (dt=.../hour=...),
-- unescaped ('%2F' is '/', '%3D' '=', '%25' '%') and typed by the column
-- ('07' an INT 7), __DEFAULT_PARTITION__ NULL; the files hold the other
-- columns, and a field named as a partition column in them is not read
-- (the path's value wins). Hidden names (_SUCCESS, .part-1.inprogress,
-- _temporary/) are skipped.
CREATE TABLE sales (id BIGINT, amount BIGINT, dt STRING, hour INT)
PARTITIONED BY (dt, hour)
WITH ('connector' = 'filesystem', 'path' = 'data/partitioned', 'format' = 'json');

SELECT * FROM sales;
SELECT id, dt FROM sales WHERE hour IS NULL OR hour < 12;
