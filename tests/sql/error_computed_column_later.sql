-- A computed column reads the table's physical and metadata columns only,
-- as Flink validates it: naming another computed column (here a later one)
-- is refused with Calcite's message.
CREATE TABLE readings (
  sensor STRING, celsius INT, s STRING,
  fahrenheit AS kelvin * 9 / 5 - 459,
  kelvin AS celsius + 273
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
