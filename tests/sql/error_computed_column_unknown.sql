-- A computed column's expression is bound at CREATE TABLE, its errors at
-- their place.
CREATE TABLE readings (
  sensor STRING, celsius INT, s STRING,
  fahrenheit AS celsuis * 9 / 5 + 32
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
