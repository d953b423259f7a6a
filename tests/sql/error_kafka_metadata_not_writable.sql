-- An INSERT writes every metadata column that is not VIRTUAL: 'partition'
-- is read only (Flink's kafka sink writes 'headers' and 'timestamp').
CREATE TABLE events (v BIGINT, p INT METADATA FROM 'partition')
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');

INSERT INTO events VALUES (1, 0);
