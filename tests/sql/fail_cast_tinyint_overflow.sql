-- A CAST of a string that is no value of the type fails the job with
-- Flink's reason, the value and the column named (TRY_CAST is NULL there).
CREATE TABLE c (k TINYINT, t TINYINT, s STRING, f FLOAT)
WITH ('connector' = 'filesystem', 'path' = 'data/types/small_numbers.csv', 'format' = 'csv');
SELECT k, TRY_CAST(s AS TINYINT) AS s FROM c;
SELECT k, CAST(s AS TINYINT) AS s FROM c;
