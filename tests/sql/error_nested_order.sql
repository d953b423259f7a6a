-- ROW, ARRAY and MAP values compare with = and <> only (as Flink's).
CREATE TABLE n (id INT, arr ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT arr < arr FROM n;
