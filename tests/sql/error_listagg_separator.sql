-- LISTAGG's separator is a string literal in weir (Flink takes a column
-- too).
CREATE TABLE r (k STRING, n INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');
SELECT k, LISTAGG(s, k) FROM r GROUP BY k;
