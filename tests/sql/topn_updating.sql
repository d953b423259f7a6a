-- Top-N over an updating input (Flink's RetractableTopNFunction, the
-- retract strategy): the keys with the largest sums so far, from a group
-- aggregate's -U/+U changelog. Every rank whose row changed sends -U/+U, a
-- rank filled first +I, a rank left empty -D; without rn the row that
-- leaves the top goes -D and the one that enters +I. Rows, in file order:
-- a 10, b 5, a 20, a 30, b 7, a 1, c 3, b 8, a 40, a 50.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

EXPLAIN CHANGELOG_MODE SELECT * FROM (
  SELECT k, s, ROW_NUMBER() OVER (ORDER BY s DESC) AS rn
  FROM (SELECT k, SUM(amount) AS s FROM t GROUP BY k))
WHERE rn <= 2;
SELECT * FROM (
  SELECT k, s, ROW_NUMBER() OVER (ORDER BY s DESC) AS rn
  FROM (SELECT k, SUM(amount) AS s FROM t GROUP BY k))
WHERE rn <= 2;

-- The smallest sum, without rn: b and c trade places as their sums grow.
SELECT k, s FROM (
  SELECT k, s, ROW_NUMBER() OVER (ORDER BY s) AS rn
  FROM (SELECT k, SUM(amount) AS s FROM t GROUP BY k))
WHERE rn = 1;
