-- Top-N over an insert-only table (Flink's AppendOnlyTopNFunction,
-- SEMANTICS.md 10): ROW_NUMBER() ordered by a column that is not the
-- rowtime, filtered by its number. Rows, in file order: a 10, b 5, a 20,
-- a 30, b 7, a 1, c 3, b 8, a 40, a 50.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- With rn: a row that enters the top sends -U/+U for every rank whose row
-- changed, +I for a rank filled the first time.
EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC) AS rn FROM t) WHERE rn <= 2;
SELECT k, amount, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC) AS rn FROM t) WHERE rn <= 2;

-- Without rn: +I for the row that enters, -D for the row it pushes out.
SELECT k, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC) AS rn FROM t) WHERE rn < 3;

-- rn BETWEEN 2 AND 3 (only ranks 2 and 3 go out), no partition, ascending,
-- and a filter beside the rank's (kept as a filter after it).
SELECT k, amount, rn FROM (
  SELECT k, amount, ROW_NUMBER() OVER (ORDER BY amount) AS rn FROM t)
WHERE rn BETWEEN 2 AND 3 AND k <> 'c';

-- rn = 1 on a column that is not the rowtime: a Top-1, not a deduplication.
SELECT k, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount ASC) AS rn FROM t) WHERE 1 >= rn;

-- The query around a Top-N may group it (its input then retracts).
SELECT k, COUNT(*) AS n, SUM(amount) AS s FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC) AS rn FROM t)
WHERE rn <= 2 GROUP BY k;
