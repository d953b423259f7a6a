-- Flink's aggregates beyond COUNT, SUM, AVG: FILTER (WHERE c) on any
-- aggregate (group and window aggregates: a row counts for the aggregate
-- when c is TRUE), COUNT(DISTINCT) with a FILTER, STDDEV_POP/STDDEV_SAMP/
-- VAR_POP/VAR_SAMP (Calcite's reduction to sums: an INT argument gives an
-- INT, computed in integers; NULL for no value, SAMP NULL for one),
-- FIRST_VALUE/LAST_VALUE (the first and last non-NULL value in arrival
-- order; a hopping window's panes merged in time), LISTAGG(x[, sep]) (',' by default, NULLs skipped), MIN/MAX over
-- every ordered type, SUM/AVG of DECIMAL (DECIMAL(38, s), DECIMAL(38,
-- max(6, s))); and each over an input that retracts (Flink's *WithRetract
-- functions: the earliest equal value taken out).
CREATE TABLE r (k STRING, n INT, x DOUBLE, f FLOAT, d DECIMAL(10, 2), `day` DATE, t TIME(3),
  s STRING, b BOOLEAN, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');

SELECT k, COUNT(*) FILTER (WHERE n > 3) AS c, SUM(n) FILTER (WHERE b) AS sb,
       COUNT(DISTINCT s) FILTER (WHERE n < 8) AS ds, MAX(s) FILTER (WHERE NOT b) AS ms,
       AVG(d) FILTER (WHERE d > 0) AS ad
FROM r GROUP BY k;

SELECT k, STDDEV_POP(x), STDDEV_SAMP(x), VAR_POP(x), VAR_SAMP(x), STDDEV_POP(n), VAR_SAMP(n),
       STDDEV_SAMP(f)
FROM r GROUP BY k;

SELECT k, FIRST_VALUE(s), LAST_VALUE(s), FIRST_VALUE(n), LAST_VALUE(d), LISTAGG(s),
       LISTAGG(s, '; ')
FROM r GROUP BY k;

SELECT k, MIN(d), MAX(d), MIN(`day`), MAX(`day`), MIN(t), MAX(t), MIN(s), MAX(s), MIN(b),
       MAX(b), MIN(ts), MAX(f), SUM(d), AVG(d)
FROM r GROUP BY k;

-- window aggregates: tumbling, and hopping (panes merged); COUNT(DISTINCT)
-- keeps its values in the window's accumulator
SELECT window_start, COUNT(*) FILTER (WHERE n > 3) AS c, SUM(n) FILTER (WHERE b) AS sb,
       MAX(x) FILTER (WHERE k = 'a') AS mx, STDDEV_POP(x), VAR_SAMP(n), FIRST_VALUE(s),
       LAST_VALUE(s), LISTAGG(s, '|'), MIN(`day`), MAX(d), COUNT(DISTINCT k) AS dk,
       COUNT(DISTINCT x) FILTER (WHERE b) AS dxb
FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;

SELECT window_start, window_end, COUNT(*) FILTER (WHERE b) AS c, VAR_POP(x), FIRST_VALUE(s),
       LAST_VALUE(s), LISTAGG(s), MIN(t), MAX(s), COUNT(DISTINCT x) AS dx, COUNT(DISTINCT k) AS dk
FROM TABLE(HOP(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;

-- over an input that retracts: each key's last fruit and largest n, as
-- they change
SELECT LISTAGG(s), FIRST_VALUE(s), LAST_VALUE(s), STDDEV_POP(m), VAR_SAMP(m), MIN(s), COUNT(*)
FROM (SELECT k, LAST_VALUE(s) AS s, MAX(n) AS m FROM r GROUP BY k);
