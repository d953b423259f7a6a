-- A window join needs the same window on both sides (Flink's message).
CREATE TABLE lt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_left.json', 'format' = 'json');
CREATE TABLE rt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_right.json', 'format' = 'json');
SELECT L.id, R.id
FROM (SELECT * FROM TABLE(HOP(TABLE lt, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))) L
JOIN (SELECT * FROM TABLE(CUMULATE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' MINUTE, INTERVAL '1' HOUR))) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
