-- Computed columns (`name AS expr`): computed when the table is read, by a
-- Calc right behind its source, as Flink's planner puts a projection after
-- the scan. A computed rowtime with a WATERMARK on it: the watermark is
-- assigned after the column is computed (WatermarkAssigner over the Calc).
-- The watermark trails the largest rowtime by 4 s, emitted after every row
-- that raises it: the row of 00:00:03 after one of 00:00:07 is on time, the
-- one of 00:00:09 after 00:00:16 is late for its windows and is dropped.
CREATE TABLE readings (
  sensor STRING,
  celsius INT,
  s STRING,
  fahrenheit AS celsius * 9 / 5 + 32,
  warm AS celsius >= 20,
  ts AS TO_TIMESTAMP(s),
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json',
       'scan.watermark.emit.strategy' = 'on-event');

EXPLAIN SELECT * FROM readings;

SELECT * FROM readings;

-- in WHERE and GROUP BY
SELECT sensor, fahrenheit FROM readings WHERE warm;

SELECT warm, COUNT(*) AS n, MAX(fahrenheit) AS hottest FROM readings GROUP BY warm;

-- a group window and a window TVF over the computed rowtime
SELECT TUMBLE_START(ts, INTERVAL '5' SECOND) AS w, COUNT(*) AS n, MAX(fahrenheit) AS hottest
FROM readings GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);

SELECT window_start, sensor, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, sensor;

-- An INSERT writes the physical columns only: the query gives sensor,
-- celsius and s, and reading the table back computes the rest.
CREATE TABLE copy (
  sensor STRING,
  celsius INT,
  s STRING,
  kelvin AS celsius + 273
) WITH ('connector' = 'print');

INSERT INTO copy SELECT sensor, celsius, s FROM readings WHERE sensor = 'north';

INSERT INTO copy (s, sensor) SELECT s, sensor FROM readings WHERE sensor = 'east';

-- A physical rowtime whose watermark reads no computed column keeps it at
-- the source (WatermarkAssigner right after it, the Calc above), as without
-- computed columns: the connector sees its rowtime and 'scan.speed' paces
-- by it (tests/sql/idle_file_partition.sql's second query, with a computed
-- column beside).
CREATE TABLE released (k STRING, ts TIMESTAMP(3), tag AS UPPER(k), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/quiet', 'format' = 'csv',
      'scan.speed' = '1', 'scan.watermark.idle-timeout' = '500 ms');

EXPLAIN SELECT window_start, tag, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE released, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, tag;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE released, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
