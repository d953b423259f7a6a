-- Two columns of one metadata key.
CREATE TABLE events (v BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `timestamp` TIMESTAMP_LTZ(3) METADATA VIRTUAL)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
