-- FILTER (WHERE c) takes a BOOLEAN condition (Calcite's message).
CREATE TABLE r (k STRING, n INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');
SELECT k, COUNT(*) FILTER (WHERE n) FROM r GROUP BY k;
