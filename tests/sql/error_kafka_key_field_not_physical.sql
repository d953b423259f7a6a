-- A key field is a physical column: not a metadata column, not an unknown
-- one (Flink's message lists the columns it can be).
CREATE TABLE events (k STRING, v BIGINT, p INT METADATA FROM 'partition' VIRTUAL)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'value.format' = 'json', 'key.format' = 'json', 'key.fields' = 'k;p');
