-- 'key.format' needs 'key.fields' (Flink's message).
CREATE TABLE events (k STRING, v BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'value.format' = 'json', 'key.format' = 'json');
