-- STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP of a DECIMAL(p, s), as Flink
-- computes them: Calcite's reduction in DECIMAL arithmetic of Flink's types
-- (SUM(x) cast to the result type, squared, divided by COUNT(x); SUM(x * x)
-- minus that; divided by the count or count - 1; the deviations' POWER(.., 0.5)
-- in DOUBLE), the result DECIMAL(38, max(6, s)), rounded HALF_UP; NULL for no
-- value (SAMP: one), and where a step passes 38 digits. Group, window and
-- global aggregates, retraction through a group aggregate's changelog.
CREATE TABLE m (id INT, cur STRING, amount DECIMAL(10, 3), rate DECIMAL(3, 2), big DECIMAL(38, 12))
WITH ('connector' = 'filesystem', 'path' = 'data/types/money.json', 'format' = 'json');

SELECT cur, STDDEV_POP(amount), STDDEV_SAMP(amount), VAR_POP(amount), VAR_SAMP(amount),
       VAR_POP(rate), STDDEV_SAMP(rate), VAR_POP(big)
FROM m GROUP BY cur;

SELECT STDDEV_POP(amount), VAR_SAMP(amount), STDDEV_SAMP(CAST(amount AS DECIMAL(20, 10)))
FROM m;

SELECT VAR_POP(total), STDDEV_SAMP(total)
FROM (SELECT cur, SUM(amount) AS total FROM m GROUP BY cur);

SELECT VAR_SAMP(EXPR$0), STDDEV_POP(EXPR$0)
FROM (VALUES (CAST(1.1 AS DECIMAL(5, 1))), (2.2), (3.3), (CAST(NULL AS DECIMAL(5, 1))));
