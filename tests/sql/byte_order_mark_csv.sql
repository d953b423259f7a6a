-- A UTF-8 byte order mark at the start of a CSV file (data/bom.csv begins
-- with EF BB BF) is not part of the first row's first field.
CREATE TABLE c (id BIGINT, note STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/bom.csv', 'format' = 'csv');

SELECT id, note FROM c;
