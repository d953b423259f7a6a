-- This file begins with a UTF-8 byte order mark (EF BB BF), as editors
-- on Windows may save it: weir sql skips it.
CREATE TABLE c (id BIGINT, note STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/bom.csv', 'format' = 'csv');

SELECT id + 1 AS next FROM c;
