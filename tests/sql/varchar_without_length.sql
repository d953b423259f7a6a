-- VARCHAR and VARBINARY without a length are STRING and BYTES, as in
-- Flink's DDL (its type system's default precision for both is
-- Integer.MAX_VALUE): the session's 'weir.string-capacity' is their
-- capacity, here 300 for strings of 150 to 210 bytes. Schemas made in the
-- middle of a plan (a filter's, a subquery's, a group aggregate's output)
-- keep that capacity: a string a binder makes over them (LISTAGG, CAST
-- to STRING) has it too, and 200-byte strings come out of a GROUP BY
-- subquery whole.
SET 'weir.string-capacity' = '300';
CREATE TABLE t (k VARCHAR, s VARCHAR, v INT, b VARBINARY)
WITH ('connector' = 'filesystem', 'path' = 'data/long_strings.json', 'format' = 'json');

EXPLAIN SELECT k, s, CAST(s AS VARCHAR) AS c, CAST(b AS VARBINARY) AS d FROM t;
SELECT k, CHAR_LENGTH(s) AS n, CHAR_LENGTH(CAST(s AS VARCHAR)) AS c, b IS NULL AS nb FROM t;
SELECT CHAR_LENGTH(LISTAGG(s)) AS n FROM t WHERE v = 1;
SELECT w, CHAR_LENGTH(m) AS n, SUBSTRING(m, 1, 3) AS head
FROM (SELECT v / 2 AS w, MAX(s) AS m FROM t GROUP BY v / 2);
SELECT CHAR_LENGTH(LISTAGG(m)) AS n FROM (SELECT v, MAX(s) AS m FROM t GROUP BY v) WHERE v = 1;
