-- The same, for a column named after its key (METADATA without FROM).
CREATE TABLE events (v BIGINT, `partition` TIMESTAMP(3) METADATA VIRTUAL)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
