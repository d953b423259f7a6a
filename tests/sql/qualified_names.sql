-- A source's columns named by its qualifier, as Calcite resolves them: the
-- alias of a table or of a subquery (Q.col), or a table's name (t.col),
-- in every clause of the query that reads it — the select list, WHERE,
-- GROUP BY and the aggregates, a group window's time column and its
-- auxiliary functions (TUMBLE_START(B.ts, ...)), OVER's PARTITION BY and
-- ORDER BY, and t.* (every column of t). Nexmark's queries are written so
-- (q4: SELECT Q.category, AVG(Q.final) FROM (...) Q GROUP BY Q.category).
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

SELECT T.k, T.amount FROM t T WHERE T.amount > 20;
SELECT t.k, t.amount FROM t WHERE t.amount < 5;

-- a grouped subquery's columns grouped again by its alias; the aggregate
-- makes the select list itself, as with bare names
EXPLAIN SELECT Q.k, AVG(Q.m) AS a FROM (SELECT k, MAX(amount) AS m FROM t GROUP BY k, ts) Q
GROUP BY Q.k;
SELECT Q.k, AVG(Q.m) AS a FROM (SELECT k, MAX(amount) AS m FROM t GROUP BY k, ts) Q
GROUP BY Q.k;

-- group windows on B.ts
SELECT B.k, COUNT(*) AS n, TUMBLE_START(B.ts, INTERVAL '2' SECOND) AS ws,
       TUMBLE_END(B.ts, INTERVAL '2' SECOND) AS we
FROM t B GROUP BY B.k, TUMBLE(B.ts, INTERVAL '2' SECOND);
SELECT B.k, COUNT(*) AS n, SESSION_START(B.ts, INTERVAL '1' SECOND) AS s
FROM t B WHERE B.k = 'b' GROUP BY B.k, SESSION(B.ts, INTERVAL '1' SECOND);

-- OVER over a subquery by its alias
SELECT Q.k, Q.amount, SUM(Q.amount) OVER (PARTITION BY Q.k ORDER BY Q.ts
  ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s
FROM (SELECT * FROM t WHERE amount < 40) Q;

-- T.*: T's columns in their order, then the other items
SELECT T.*, T.amount * 2 AS twice FROM t AS T WHERE T.k = 'c';

-- a Top-N whose subquery reads T.* and ranks by T's columns; the query
-- around names the ranked rows by its own alias
SELECT R.k, R.amount FROM (
  SELECT T.*, ROW_NUMBER() OVER (PARTITION BY T.k ORDER BY T.amount DESC) AS rn FROM t T) R
WHERE rn <= 1 AND R.k <> 'c';

-- PROCTIME() in a subquery's select list is a processing-time attribute of
-- its output, and a group window over it by the subquery's alias runs on
-- the job clock (Nexmark q12)
EXPLAIN SELECT B.k, COUNT(*) AS n, TUMBLE_START(B.p, INTERVAL '10' SECOND) AS ws
FROM (SELECT *, PROCTIME() AS p FROM t) B GROUP BY B.k, TUMBLE(B.p, INTERVAL '10' SECOND);
