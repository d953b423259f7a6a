-- Window Top-N and window deduplication read directly from a window TVF
-- (Flink's WindowTableFunction then WindowRank / WindowDeduplicate): each
-- row of the TVF once per window it falls in; each window's final ranks
-- once, when the watermark reaches its end - 1; insert-only. Rows, in file
-- order: a 10 @1, b 5 @1, a 20 @2, a 30 @2, b 7 @3, a 1 @1.5 and c 3 @0.5
-- (late for their windows), b 8 @2.5, a 40 @4, a 50 @5.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- The two largest amounts of each 2 s window.
EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))
WHERE rn <= 2;
SELECT window_start, window_end, k, amount, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))
WHERE rn <= 2;

-- Hopping windows of 4 s every 2 s: a row is in two windows.
SELECT window_start, window_end, k, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount) AS rn
  FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND)))
WHERE rn = 1;

-- Window deduplication: the last row of each key and window (a 20 and a 30
-- tie at 2 s: the later one, a 30, is kept), and the first.
EXPLAIN CHANGELOG_MODE SELECT window_start, k, amount, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))
WHERE rn = 1;
SELECT window_start, k, amount, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))
WHERE rn = 1;
SELECT window_start, k, amount, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts ASC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND)))
WHERE rn = 1;
