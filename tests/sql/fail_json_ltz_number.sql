-- An epoch number for a JSON TIMESTAMP_LTZ column is refused, as Flink's
-- json format refuses it (it reads the number's text as a date): the
-- message says which string it reads.
CREATE TABLE e (id BIGINT, ts TIMESTAMP_LTZ(3))
WITH ('connector' = 'filesystem', 'path' = 'data/ltz_epoch.json', 'format' = 'json');
SELECT * FROM e;
