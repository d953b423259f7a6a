-- [...] on a value that is neither an ARRAY nor a MAP.
CREATE TABLE n (id INT) WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT id[1] FROM n;
