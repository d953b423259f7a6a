-- A numeric function refuses a string with Flink's (Calcite's) message.
CREATE TABLE n (id INT, i INT, b BIGINT, d DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'data/numbers.json', 'format' = 'json');
SELECT id, ROUND(d, 1), POWER(CAST(id AS STRING), 2) FROM n;
