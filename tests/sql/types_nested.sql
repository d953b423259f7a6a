-- ROW<...> (also ROW(...)), ARRAY<...> and MAP<...>, nested in each other,
-- read from nested JSON: a missing field or a JSON null is NULL (a field
-- the ROW does not have is skipped). The SQL client shows a ROW as (1, a),
-- an ARRAY as [1, 2], a MAP as {k=v} (Flink's casts to a string); the
-- print connector as Row.toString: +I[1, a].
CREATE TABLE n (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, BIGINT>,
  deep ROW(p ROW<q ARRAY<DOUBLE>>, tags ARRAY<STRING>))
WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT * FROM n;

CREATE TABLE p (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, BIGINT>,
  deep ROW(p ROW<q ARRAY<DOUBLE>>, tags ARRAY<STRING>)) WITH ('connector' = 'print');
INSERT INTO p SELECT * FROM n;
