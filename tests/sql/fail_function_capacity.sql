-- A string function whose result nothing bounds at plan time (REPEAT by a
-- count that is a column) gets the schema's string capacity; a longer
-- result fails the query with the function's name, never cut.
CREATE TABLE t (id INT, s STRING, sep STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = 'data/strings.json', 'format' = 'json');
SELECT id, REPEAT(s, n * 10) AS r FROM t;
