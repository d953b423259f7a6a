-- CAST of a string that is no date fails the job with Flink's reason, the
-- value and the column named.
CREATE TABLE c (id INT, d STRING, t STRING, ts STRING, ltz STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/types/events.csv', 'format' = 'csv');
SELECT id, CAST(t AS DATE) FROM c;
