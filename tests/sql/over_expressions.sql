-- OVER calls inside expressions of the select list (as Flink plans them:
-- one OverAggregate of every distinct call, w0$o0, w0$o1 ..., then a Calc
-- of the expressions over its columns): arithmetic on a call, a CASE on
-- one, a ratio of a column and a call, and the difference of two calls of
-- one window written out twice.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
EXPLAIN SELECT k, SUM(amount) OVER w + 1 AS s1, CASE WHEN COUNT(*) OVER w > 1 THEN 'many' ELSE 'one' END AS c,
  SUM(amount) OVER w AS s FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
SELECT k, amount, SUM(amount) OVER w + 1 AS s1, CASE WHEN COUNT(*) OVER w > 1 THEN 'many' ELSE 'one' END AS c,
  SUM(amount) OVER w AS s, amount * 100 / SUM(amount) OVER w AS pct FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
SELECT k, MAX(amount) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) - MIN(amount) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS spread FROM t;
