-- An OVER aggregate over an updating input (weir's extension, SEMANTICS.md
-- 10: Flink refuses it, FLINK-19059, which is why Nexmark q6 does not run on
-- Flink): the materialized view of every row of the input with its
-- aggregate over its ROWS frame, ordered by the value of the ORDER BY
-- column (the group aggregate's ts is no time attribute any more; rows of
-- equal value in arrival order). Each change of the input goes out at once
-- with its kind, then -U/+U for each other row whose frame's value changed.
-- The input here: the largest amount per (k, ts) of over.json, which a
-- later row of a (k, ts) updates (a 30 @2 after a 20 @2), and rows that
-- come out of time order (a 1 @1.5 after a @2) land at their place.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

EXPLAIN CHANGELOG_MODE
SELECT Q.k, Q.ts, Q.m,
       SUM(Q.m) OVER (PARTITION BY Q.k ORDER BY Q.ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM (SELECT k, ts, MAX(amount) AS m FROM t GROUP BY k, ts) AS Q;

-- ROWS 1 PRECEDING: a row and the one before it
SELECT Q.k, Q.ts, Q.m,
       SUM(Q.m) OVER (PARTITION BY Q.k ORDER BY Q.ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s,
       MAX(Q.m) OVER (PARTITION BY Q.k ORDER BY Q.ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS hi
FROM (SELECT k, ts, MAX(amount) AS m FROM t GROUP BY k, ts) AS Q;

-- Nexmark q6's shape: the average of the last rows of a partition (here
-- the last 3 per k), over an unbounded frame too, and a count of them
SELECT k, ts, m,
       AVG(m) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS a3,
       COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n3
FROM (SELECT k, ts, MAX(amount) AS m FROM t WHERE k <> 'b' GROUP BY k, ts);
SELECT k, ts, m,
       SUM(m) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
         AS running
FROM (SELECT k, ts, MAX(amount) AS m FROM t WHERE k = 'a' GROUP BY k, ts);
