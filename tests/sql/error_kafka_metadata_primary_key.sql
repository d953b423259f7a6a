-- A metadata column is no key: upsert-kafka's key is the record's key.
CREATE TABLE totals (`user` STRING, p INT METADATA FROM 'partition',
  PRIMARY KEY (p) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'totals',
  'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json',
  'value.format' = 'json');
