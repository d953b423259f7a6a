-- Late rows and window aggregates (allowed lateness 0, SEMANTICS.md 9): a
-- row whose every window has fired is dropped and counted late, in group
-- windows and window TVFs alike; a group aggregate has no windows and
-- counts every row; a watermark that allows 1 s of disorder keeps c.
-- Rows, in file order: a 1.0 s, b 2.5 s, c 1.2 s, d 6.0 s, e 2.9 s.
CREATE TABLE strict (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/disorder.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
CREATE TABLE tolerant (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/disorder.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- Group window: c is late for [1, 2) (fired at b), e for [2, 3) (at d).
SELECT TUMBLE_START(ts, INTERVAL '1' SECOND) AS w, COUNT(*) AS n
FROM strict GROUP BY TUMBLE(ts, INTERVAL '1' SECOND);

-- Hopping windows of 2 s every 1 s: c's windows [0, 2) and [1, 3); [1, 3)
-- is still open at b (2.5 s), so c counts there and is late only for
-- [0, 2): a row is dropped only when all its windows have fired.
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(HOP(TABLE strict, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECONDS))
GROUP BY window_start, window_end;

-- Sessions with a 1 s gap: a's session [1.0, 2.0) fires at b, so c (its
-- own session [1.2, 2.2), nothing open to merge with) is late; b's session
-- fires at d, so e is late too.
SELECT SESSION_START(ts, INTERVAL '1' SECOND) AS s, SESSION_END(ts, INTERVAL '1' SECOND) AS e,
       COUNT(*) AS n
FROM strict GROUP BY SESSION(ts, INTERVAL '1' SECOND);

-- A watermark 1 s behind the rows: c is in time; e, 3.1 s behind d, is not.
SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE tolerant, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;

-- No windows, no lateness: every row counts.
SELECT COUNT(*) AS n FROM strict;
