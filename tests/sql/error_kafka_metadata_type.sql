-- A metadata column whose type the metadata's value does not go into.
CREATE TABLE events (v BIGINT, ts BOOLEAN METADATA FROM 'timestamp')
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
