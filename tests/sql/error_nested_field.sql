-- A ROW's field by a name it does not have: the message lists its fields.
CREATE TABLE n (id INT, r ROW<a INT, b STRING>) WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT r.c FROM n;
