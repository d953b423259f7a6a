-- An ARRAY (or MAP) holds at most 'weir.collection-capacity' elements
-- (default 16), inline in the row: a longer value fails the job with the
-- file, the line, the table's operator and the column, never cut.
SET 'weir.collection-capacity' = '3';
CREATE TABLE n (id INT, arr ARRAY<INT>)
WITH ('connector' = 'filesystem', 'path' = 'data/types/nested_big.json', 'format' = 'json');
SELECT * FROM n;
