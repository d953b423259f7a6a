-- Top-N over an updating input whose order only moves up (Flink's
-- UpdatableTopNFunction, the update strategy): a COUNT or a MAX
-- descending, a MIN ascending, of a group aggregate over inserts whose
-- unique key (the group keys) holds the partition key. Only the top rows
-- are kept; the aggregate's -U are not read. A row whose count grew moves
-- up and the ranks it passes shift (-U/+U each, its old row's -U first); a
-- row not held enters when it beats the last one held. Keys, in file
-- order: x y y z z z x x x.
CREATE TABLE c (k STRING, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/topn_counts.json', 'format' = 'json');

EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn
  FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k))
WHERE rn <= 2;
SELECT * FROM (
  SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn
  FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k))
WHERE rn <= 2;

-- The same without rn: the row that leaves the top goes -D, an update of a
-- row in it -U/+U.
SELECT k, n FROM (
  SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn
  FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k))
WHERE rn <= 2;

-- Rows, in file order: a 10, b 5, a 20, a 30, b 7, a 1, c 3, b 8, a 40, a 50.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- MAX descending, ranks 2 and 3 (an offset: the row numbers' algorithm).
SELECT * FROM (
  SELECT k, hi, ROW_NUMBER() OVER (ORDER BY hi DESC) AS rn
  FROM (SELECT k, MAX(amount) AS hi FROM t GROUP BY k))
WHERE rn BETWEEN 2 AND 3;

-- Partitioned by k, the unique key (k, b); MIN ascending.
EXPLAIN SELECT * FROM (
  SELECT k, b, lo, ROW_NUMBER() OVER (PARTITION BY k ORDER BY lo) AS rn
  FROM (SELECT k, amount > 9 AS b, MIN(amount) AS lo FROM t GROUP BY k, amount > 9))
WHERE rn <= 2;
SELECT * FROM (
  SELECT k, b, lo, ROW_NUMBER() OVER (PARTITION BY k ORDER BY lo) AS rn
  FROM (SELECT k, amount > 9 AS b, MIN(amount) AS lo FROM t GROUP BY k, amount > 9))
WHERE rn <= 2;

-- The retract strategy where the order can move down (a count ascending, a
-- SUM, a computed column) or the unique key misses the partition key.
EXPLAIN SELECT * FROM (
  SELECT k, n, ROW_NUMBER() OVER (ORDER BY n) AS rn
  FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k))
WHERE rn <= 2;
EXPLAIN SELECT * FROM (
  SELECT k, s, ROW_NUMBER() OVER (ORDER BY s DESC) AS rn
  FROM (SELECT k, SUM(amount) AS s FROM t GROUP BY k))
WHERE rn <= 2;
EXPLAIN SELECT * FROM (
  SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn
  FROM (SELECT k, n + 0 AS n FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k)))
WHERE rn <= 2;
EXPLAIN SELECT * FROM (
  SELECT k, n, ROW_NUMBER() OVER (PARTITION BY n ORDER BY k) AS rn
  FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k))
WHERE rn <= 2;
