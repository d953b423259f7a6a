-- A computed column naming itself is refused as Flink refuses it.
CREATE TABLE readings (
  sensor STRING, celsius INT, s STRING,
  warm AS warm OR celsius > 20
) WITH ('connector' = 'filesystem', 'path' = 'data/readings.json', 'format' = 'json');
