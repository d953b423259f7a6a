-- 'value.fields-include' is ALL or EXCEPT_KEY.
CREATE TABLE events (k STRING, v BIGINT)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'value.format' = 'json', 'key.format' = 'json', 'key.fields' = 'k',
  'value.fields-include' = 'KEY_ONLY');
