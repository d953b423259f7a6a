-- A WHERE of integer comparisons of a column with a literal (ANDed) is
-- compared in place, without the interpreter: every operator, the literal
-- on either side, each integer width against literals of another, a
-- negative literal, a NULL column (never TRUE), and a predicate that
-- mixes in another kind of test (the interpreter then decides all of it).
CREATE VIEW t AS
SELECT * FROM (VALUES
  (1, CAST(1 AS TINYINT), CAST(300 AS SMALLINT), 70000, CAST(5000000000 AS BIGINT), 'a'),
  (2, CAST(-5 AS TINYINT), CAST(-300 AS SMALLINT), -70000, CAST(-5000000000 AS BIGINT), 'b'),
  (3, CAST(NULL AS TINYINT), CAST(NULL AS SMALLINT), CAST(NULL AS INT), CAST(NULL AS BIGINT), 'c'),
  (4, CAST(127 AS TINYINT), CAST(0 AS SMALLINT), 0, CAST(0 AS BIGINT), 'd'))
  AS v(id, ti, si, i, bi, s);
SELECT 1 AS q, id FROM t WHERE ti = 1;
SELECT 2 AS q, id FROM t WHERE ti <> 1;
SELECT 3 AS q, id FROM t WHERE si < 0;
SELECT 4 AS q, id FROM t WHERE i <= 0;
SELECT 5 AS q, id FROM t WHERE bi > 4999999999;
SELECT 6 AS q, id FROM t WHERE bi >= -5000000000;
SELECT 7 AS q, id FROM t WHERE 0 < i;
SELECT 8 AS q, id FROM t WHERE -6 >= ti;
SELECT 9 AS q, id FROM t WHERE 100 > ti AND si >= -300 AND i <> 70000;
SELECT 10 AS q, id FROM t WHERE ti < 300;
SELECT 11 AS q, id FROM t WHERE bi = 0 AND s = 'd';
SELECT 12 AS q, id, i FROM t WHERE i > -70001 AND bi < 5000000000;
