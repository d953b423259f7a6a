-- LISTAGG's result is bounded as strings are (the string capacity, 64
-- bytes by default): a longer one fails the job naming the aggregate,
-- never a silent cut.
CREATE TABLE r (k STRING, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');
SELECT k, LISTAGG(REPEAT(s, 5)) FROM r GROUP BY k;
