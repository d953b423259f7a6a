-- A primary key is on physical columns only.
CREATE TABLE readings (
  sensor STRING NOT NULL, celsius INT, s STRING,
  id AS UPPER(sensor),
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
