-- SHOW TABLES, SHOW VIEWS, DESCRIBE, SET alone and RESET, printed as
-- Flink's TableResult.print() prints them: a table with its column names,
-- each cell right-aligned, "N rows in set" ("Empty set" without rows).
SHOW TABLES;
SHOW VIEWS;
SHOW USER FUNCTIONS;
SET;

CREATE TABLE readings (
  sensor STRING NOT NULL,
  celsius INT,
  s STRING,
  fahrenheit AS celsius * 9 / 5 + 32,
  ts AS TO_TIMESTAMP(s),
  pt AS PROCTIME(),
  PRIMARY KEY (sensor) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');

CREATE TABLE events (`key` STRING, v BIGINT, p INT METADATA FROM 'partition' VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL, PRIMARY KEY (`key`, v) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'events',
  'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json',
  'value.format' = 'json');

CREATE VIEW warm AS SELECT sensor, fahrenheit, ts FROM readings WHERE celsius >= 20;
CREATE VIEW counts AS SELECT sensor, COUNT(*) AS n FROM readings GROUP BY sensor;

SHOW TABLES;
show views;
DESCRIBE readings;
DESC events;
DESCRIBE warm;
describe counts;

SET 'parallelism.default' = '2';
SET 'table.local-time-zone' = 'Europe/Berlin';
SET 'parallelism.default' = '1';
SET;
RESET 'parallelism.default';
SET;
RESET;
SET;
