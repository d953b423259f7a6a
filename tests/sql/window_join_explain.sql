-- EXPLAIN names a window join WindowJoin with both windows as Flink shows
-- them; insert-only. ON without the window columns' equalities makes a
-- regular join of the TVFs' rows instead.
CREATE TABLE lt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_left.json', 'format' = 'json');
CREATE TABLE rt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_right.json', 'format' = 'json');

EXPLAIN CHANGELOG_MODE SELECT L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN CHANGELOG_MODE SELECT L.id, R.id
FROM (SELECT id, k, window_start, window_end
      FROM TABLE(CUMULATE(TABLE lt, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))) L
JOIN (SELECT * FROM TABLE(CUMULATE(TABLE rt, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
EXPLAIN CHANGELOG_MODE SELECT L.id, R.id
FROM (SELECT * FROM TABLE(HOP(TABLE lt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(HOP(TABLE rt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) R
ON L.k = R.k;
-- IN and EXISTS over window TVFs correlated on their window starts and ends:
-- window semi and anti joins (LeftSemiJoin, LeftAntiJoin), the left's rows
EXPLAIN CHANGELOG_MODE SELECT L.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE L.k IN (SELECT k FROM (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
              WHERE L.window_start = R.window_start AND L.window_end = R.window_end);
EXPLAIN CHANGELOG_MODE SELECT L.id
FROM (SELECT * FROM TABLE(HOP(TABLE lt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
WHERE NOT EXISTS (SELECT * FROM TABLE(HOP(TABLE rt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) R
                  WHERE L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end);
