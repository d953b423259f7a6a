-- CAST of bytes that are not UTF-8 to a string fails the job (Flink's
-- strict default, 'table.exec.legacy-bytes-to-string-cast' = false), the
-- column named; valid bytes before it are written.
CREATE TABLE j (k INT, a BYTES, b VARBINARY(8), n STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/types/bytes.json', 'format' = 'json');
SELECT k, CAST(b AS STRING) FROM j;
