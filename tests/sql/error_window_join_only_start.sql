-- A window join's ON equates both the window starts and the window ends:
-- one of the two alone is refused (Flink's message).
CREATE TABLE lt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_left.json', 'format' = 'json');
CREATE TABLE rt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_right.json', 'format' = 'json');
SELECT L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.k = R.k AND L.window_start = R.window_start;
