-- A UTF-8 byte order mark at the start of a JSON-lines file (data/bom.json
-- begins with EF BB BF) does not make its first line malformed.
CREATE TABLE j (id BIGINT, note STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/bom.json', 'format' = 'json');

SELECT id, note FROM j;
