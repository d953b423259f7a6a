-- 'key.fields' needs 'key.format' (Flink's message).
CREATE TABLE events (k STRING, v BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json', 'key.fields' = 'k');
