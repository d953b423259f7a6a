-- Window Top-N (Flink's WindowRank, SEMANTICS.md 10): ROW_NUMBER() over a
-- window aggregate, partitioned by window_start and window_end: each
-- window's final top rows once, when the watermark reaches its end - 1;
-- insert-only. Rows, in file order: a 10 @1, b 5 @1, a 20 @2, a 30 @2,
-- b 7 @3, a 1 @1.5 and c 3 @0.5 (late for their window), b 8 @2.5,
-- a 40 @4, a 50 @5. Windows of 2 s: [0, 2) a 10, b 5; [2, 4) a 50, b 15;
-- [4, 6) a 90.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS rn
  FROM (SELECT window_start, window_end, k, SUM(amount) AS s
        FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY window_start, window_end, k))
WHERE rn <= 2;

SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS rn
  FROM (SELECT window_start, window_end, k, SUM(amount) AS s
        FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY window_start, window_end, k))
WHERE rn <= 2;

-- The smallest sum of each window, without rn.
SELECT window_start, k, s FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY s) AS rn
  FROM (SELECT window_start, window_end, k, SUM(amount) AS s
        FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY window_start, window_end, k))
WHERE rn = 1;
