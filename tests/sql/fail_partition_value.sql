-- A partition folder whose value is not of its column's type fails the
-- query naming the file and the folder.
CREATE TABLE t (id BIGINT, hour INT) PARTITIONED BY (hour)
WITH ('connector' = 'filesystem', 'path' = 'data/partitioned_bad', 'format' = 'json');
SELECT * FROM t;
