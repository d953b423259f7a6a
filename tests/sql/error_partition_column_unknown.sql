-- A partition column that is not a column of the table (Flink's message).
CREATE TABLE visits (id BIGINT, page STRING)
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
