-- A ROW, an ARRAY or a MAP has no order: MIN and MAX of one are refused.
CREATE TABLE n (id INT, arr ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT MIN(arr) FROM n;
