-- OVER aggregates on the rowtime (SEMANTICS.md 10): each frame kind over
-- the same rows, whose watermark trails them by 1 s (emitted after each
-- row). Rows, in file order: a 10 @1, b 5 @1, a 20 @2, a 30 @2 (a peer of
-- the row before), b 7 @3, a 1 @1.5 (the watermark is at 2 already), c 3
-- @0.5 (so is it: its key has processed nothing yet), b 8 @2.5 (before b's
-- 3 in time, after it in the file), a 40 @4, a 50 @5.
-- Rows go out when the watermark reaches them, in time order.
-- An unbounded frame drops a 1 and c 3 (at or below the watermark when they
-- came); a bounded one drops a 1 only (below a's last processed time): c 3
-- goes out at the next watermark.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- ROWS: the current row and the one before it; peers one at a time.
EXPLAIN SELECT k, amount, SUM(amount) OVER (PARTITION BY k ORDER BY ts
  ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM t;
SELECT k, amount, ts,
       SUM(amount) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s,
       COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n,
       MIN(amount) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS lo
FROM t;

-- RANGE of 1 s: the rows of [ts - 1 s, ts], both ends in; peers share one
-- value that counts all of them.
SELECT k, amount, ts,
       SUM(amount) OVER (PARTITION BY k ORDER BY ts
                         RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) AS s,
       MAX(amount) OVER (PARTITION BY k ORDER BY ts
                         RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) AS hi,
       AVG(amount) OVER (PARTITION BY k ORDER BY ts
                         RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) AS mean
FROM t;

-- RANGE UNBOUNDED PRECEDING (the default frame when only ORDER BY is
-- given): peers share the value.
SELECT k, amount, SUM(amount) OVER (PARTITION BY k ORDER BY ts) AS s,
       COUNT(DISTINCT amount) OVER (PARTITION BY k ORDER BY ts) AS d
FROM t;

-- ROWS UNBOUNDED PRECEDING: peers one at a time; no PARTITION BY: one
-- partition.
SELECT k, amount,
       SUM(amount) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
FROM t;

-- The OVER call inside the select list's own order, under an alias or not.
SELECT SUM(amount) OVER (PARTITION BY k ORDER BY ts RANGE UNBOUNDED PRECEDING), k FROM t WHERE amount > 5;
