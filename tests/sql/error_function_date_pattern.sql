-- DATE_FORMAT's literal pattern is read at plan time, as Java's DateTimeFormatter
-- reads it: a letter it does not know is refused with Java's message.
CREATE TABLE t (id INT, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), s STRING, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/times.json', 'format' = 'json');
SELECT DATE_FORMAT(ts, 'yyyy-MM-dd bb') FROM t;
