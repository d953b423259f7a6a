-- FILTER belongs to aggregate calls only.
CREATE TABLE r (k STRING, n INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');
SELECT UPPER(s) FILTER (WHERE n > 1) FROM r;
