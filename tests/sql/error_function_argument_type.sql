-- A built-in function refuses an argument of the wrong type at plan time
-- with Flink's (Calcite's) message: the call's types and the forms it takes.
CREATE TABLE t (id INT, s STRING, sep STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = 'data/strings.json', 'format' = 'json');
SELECT id, SUBSTRING(n, 2) FROM t;
