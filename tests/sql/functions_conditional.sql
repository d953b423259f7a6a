-- Conditions as Flink's, in SQL's three-valued logic: IF and IFNULL (CASE
-- and COALESCE: only the deciding branch is evaluated), NULLIF, IS [NOT]
-- DISTINCT FROM (NULL is not distinct from NULL), [NOT] BETWEEN [SYMMETRIC],
-- IN with NULLs (NULL when nothing matches and a NULL is there), GREATEST
-- and LEAST (NULL if any argument is), IS [NOT] TRUE / FALSE / UNKNOWN.
CREATE TABLE n (id INT, i INT, b BIGINT, d DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'data/numbers.json', 'format' = 'json');

SELECT id, IF(i > 0, 'positive', 'not'), IF(i > 0, i, d), IFNULL(i, -1), NULLIF(i, 7),
       i IS DISTINCT FROM 7, i IS NOT DISTINCT FROM CAST(NULL AS INT), COALESCE(i, b, 0)
FROM n;

SELECT id, i BETWEEN -7 AND 7, i NOT BETWEEN 0 AND 10, i BETWEEN 7 AND -7,
       i BETWEEN SYMMETRIC 7 AND -7, d BETWEEN 0 AND CAST(NULL AS DOUBLE),
       d NOT BETWEEN 3 AND CAST(NULL AS DOUBLE)
FROM n;

SELECT id, i IN (7, 0), i IN (7, CAST(NULL AS INT)), i NOT IN (7, CAST(NULL AS INT)),
       i NOT IN (1, 2), (i > 0) IS TRUE, (i > 0) IS NOT TRUE, (i > 0) IS FALSE,
       (i > 0) IS UNKNOWN, (i > 0) IS NOT UNKNOWN
FROM n;

SELECT id, GREATEST(i, b, 3), LEAST(i, d), GREATEST(i, 0), LEAST('b', 'a', 'ä'),
       GREATEST(CAST('2024-01-01 00:00:00' AS TIMESTAMP(3)), CAST('2023-12-31 23:59:59' AS TIMESTAMP(3)))
FROM n;

-- only the deciding branch runs: no division by zero here
SELECT id, IF(i = 0, -1, 10 / i), IFNULL(i, 1 / 1) FROM n;
