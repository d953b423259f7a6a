-- Window joins (Flink's WindowJoin): two window TVFs of the same window
-- joined ON their window starts, their window ends and a key. Each window's
-- rows are joined once, when the watermark passes the window's end; a NULL
-- key meets no partner; the rest of ON filters each pair. TUMBLE, HOP and
-- CUMULATE; window aggregates (with window_start and window_end) join the
-- same way. Insert-only: compared as sets.
-- unordered
CREATE TABLE lt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_left.json', 'format' = 'json');
CREATE TABLE rt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_right.json', 'format' = 'json');

SELECT L.id, R.id, L.k, L.window_start, L.window_end, R.window_time
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- the rest of ON: a filter on the pairs of a window
SELECT L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k AND R.ts > L.ts;

-- HOP: a row in every window it falls in, joined in each
SELECT L.id, R.id, L.window_start, L.window_end
FROM (SELECT id, k, window_start, window_end
      FROM TABLE(HOP(TABLE lt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(HOP(TABLE rt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- CUMULATE: each step's window of a period
SELECT L.id, R.id, L.window_start, L.window_end
FROM (SELECT * FROM TABLE(CUMULATE(TABLE lt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(CUMULATE(TABLE rt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- no key but the window: every pair of a window
SELECT L.id, R.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.id > 'L6';

-- two window aggregates joined (Flink's documented window join)
SELECT L.k, L.window_start, L.n, R.n
FROM (SELECT k, window_start, window_end, COUNT(*) AS n
      FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      GROUP BY k, window_start, window_end) L
JOIN (SELECT k, window_start, window_end, COUNT(*) AS n
      FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      GROUP BY k, window_start, window_end) R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;
