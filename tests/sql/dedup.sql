-- Deduplication (SEMANTICS.md 10), recognised from ROW_NUMBER() ordered by
-- the rowtime and filtered to rn = 1, as Flink's planner does. Rows, in
-- file order, the watermark 1 s behind the largest time (after each row):
-- x1 @2, y1 @1.5, x2 @1.2 (before x1 in time), y2 @1.5 (a tie with y1),
-- z1 @3, x3 @0.5 (below the watermark, 2), y3 @4, w1 @2 (below the
-- watermark, 3).
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/dedup.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- Keep the last row (DESC): at once, +I then -U/+U for each row at or after
-- the kept one's time (y2 replaces y1; x2 and x3 are older than x1 and
-- change nothing); no row is late.
EXPLAIN CHANGELOG_MODE SELECT k, v, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1;
SELECT k, v, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1;

-- Keep the first row (ASC): insert-only, each key's earliest row once the
-- watermark reaches it (x2 replaces x1 before that; y2 ties y1 and does
-- not); x3 and w1 are late and dropped; y3 comes after y's row went out.
-- SELECT * keeps rn, the constant 1.
EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM t) WHERE rn = 1;
SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM t) WHERE rn = 1;

-- rn <= 1 is rn = 1; a select list in the subquery.
SELECT k, v FROM (
  SELECT k, v, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn <= 1;
