-- Window semi and anti joins (Flink's WindowJoin with LeftSemiJoin and
-- LeftAntiJoin, WindowJoinOperator's SemiAntiJoinOperator): an IN or EXISTS
-- subquery over a window TVF, correlated on both inputs' window starts and
-- ends (Flink decorrelates it into a join on them). When the watermark
-- passes a window's end each left row of it goes out if a right row of the
-- same window meets it (IN, EXISTS) or if none does (NOT IN, NOT EXISTS),
-- once however many meet it; the left's columns, windows and time
-- attribute. A NULL key meets nothing; NOT IN with a NULL on the right of
-- a window keeps none of its rows. Insert-only: compared as sets.
-- unordered
CREATE TABLE lt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_left.json', 'format' = 'json');
CREATE TABLE rt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_right.json', 'format' = 'json');

-- IN: L1 and L2 (R1 in [0, 10)), L5 (R4, R5), L6 (R6); L3's k 2 comes in
-- [10, 20) only, L4's NULL and L7's 4 meet nothing
SELECT 'in', L.id, L.k, L.window_start, L.window_end, L.window_time
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE L.k IN (SELECT k FROM (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
              WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- EXISTS with the rest of the condition: a right row of the key later in the window
SELECT 'exists later', L.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND)) R
              WHERE L.k = R.k AND L.window_start = R.window_start
                AND L.window_end = R.window_end AND R.ts > L.ts);

-- NOT EXISTS: L3, L4 (a NULL key) and L7
SELECT 'not exists', L.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE NOT EXISTS (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND)) R
                  WHERE L.k = R.k AND L.window_start = R.window_start
                    AND L.window_end = R.window_end);

-- NOT IN: R3's NULL k in [0, 10) keeps none of that window; [10, 20) has
-- L5's and L6's keys; L7 alone in [20, 30)
SELECT 'not in', L.id
FROM (SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L
WHERE L.k NOT IN (SELECT k FROM (SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R
                  WHERE L.window_start = R.window_start AND L.window_end = R.window_end);

-- HOP: a left row once in each window it falls in where a partner does
SELECT 'hop exists', L.id, L.window_start
FROM (SELECT * FROM TABLE(HOP(TABLE lt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) L
WHERE EXISTS (SELECT * FROM TABLE(HOP(TABLE rt, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) R
              WHERE L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end);

