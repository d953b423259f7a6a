-- A calendar unit of a TIME is refused, as Flink's ExtractCallGen refuses it.
CREATE TABLE v (id INT, d DATE, t TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'data/dates.json', 'format' = 'json');
SELECT id, YEAR(t) FROM v;
