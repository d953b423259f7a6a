-- A MAP's value by a key of another type.
CREATE TABLE n (id INT, m MAP<STRING, BIGINT>) WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT m[1] FROM n;
