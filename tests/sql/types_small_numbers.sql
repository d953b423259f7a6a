-- TINYINT, SMALLINT and FLOAT as Flink has them: Java's byte, short and
-- float. Integer arithmetic keeps the operands' type and wraps (TINYINT
-- 127 + 1 is -128), a narrowing CAST wraps ((byte) 300 is 44), a FLOAT or
-- DOUBLE into an integer truncates and saturates at INT's range before it
-- wraps ((byte) 1e10 is -1). A FLOAT computes in float (16777216 + 1 stays
-- 16777216) and prints as Java's Float.toString; with a DOUBLE it is a
-- DOUBLE (0.1f widened is 0.10000000149011612).
SELECT CAST(127 AS TINYINT) + CAST(1 AS TINYINT) AS t, CAST(32767 AS SMALLINT) + CAST(1 AS SMALLINT) AS s,
       CAST(300 AS TINYINT) AS a, CAST(-129 AS TINYINT) AS b, CAST(70000 AS SMALLINT) AS c,
       CAST(100 AS TINYINT) * 1000 AS d, CAST(-128 AS TINYINT) / CAST(-1 AS TINYINT) AS e,
       -CAST(-128 AS TINYINT) AS f, CAST(7 AS TINYINT) % CAST(3 AS TINYINT) AS g;
SELECT CAST(0.1 AS FLOAT), CAST(16777216 AS FLOAT) + CAST(1 AS FLOAT), CAST(0.1 AS FLOAT) + 0.0,
       CAST(1.5 AS FLOAT) + 1, CAST(1e10 AS FLOAT), CAST(12345678 AS FLOAT), CAST(0.0001 AS FLOAT),
       CAST(1e39 AS FLOAT), CAST(1e10 AS TINYINT), CAST(CAST(-2.5 AS FLOAT) AS TINYINT);

-- From strings as Flink parses them (a fraction is dropped for an
-- integer); TRY_CAST is NULL where CAST fails the job; to strings, to and
-- from BOOLEAN; a FLOAT compared with a DOUBLE is widened first.
SELECT CAST('127' AS TINYINT), CAST(' 42 ' AS SMALLINT), CAST('1.5' AS FLOAT), CAST('-3.9' AS TINYINT),
       TRY_CAST('128' AS TINYINT), TRY_CAST('x' AS FLOAT), CAST(CAST(5 AS TINYINT) AS STRING) || '!',
       CAST(CAST(2.5 AS FLOAT) AS STRING), CAST(1 AS TINYINT) = 1, CAST(0.1 AS FLOAT) = 0.1,
       CAST(CAST(0.5 AS FLOAT) AS BOOLEAN), CAST(TRUE AS TINYINT), CAST(FALSE AS FLOAT);

-- Columns read from JSON and CSV (an empty CSV field and a JSON null are
-- NULL), grouped by a TINYINT, with SUM (the argument's type: TINYINT
-- wraps, FLOAT adds in float), AVG (the argument's type: a BIGINT sum
-- divided, a FLOAT's average of a DOUBLE sum), MIN and MAX.
CREATE TABLE j (k TINYINT, t TINYINT, s SMALLINT, f FLOAT)
WITH ('connector' = 'filesystem', 'path' = 'data/types/small_numbers.json', 'format' = 'json');
CREATE TABLE c (k TINYINT, t TINYINT, s SMALLINT, f FLOAT)
WITH ('connector' = 'filesystem', 'path' = 'data/types/small_numbers.csv', 'format' = 'csv');
SELECT * FROM j;
SELECT * FROM c WHERE f > 1 OR f IS NULL;
SELECT k, SUM(t), SUM(s), SUM(f), AVG(t), AVG(s), AVG(f), MIN(t), MAX(s), MIN(f), MAX(f), COUNT(f)
FROM j GROUP BY k;
