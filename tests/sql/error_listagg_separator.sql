-- LISTAGG's separator is a string (a literal, a column or an expression):
-- another type is refused with Calcite's message.
CREATE TABLE r (k STRING, n INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');
SELECT k, LISTAGG(s, n) FROM r GROUP BY k;
