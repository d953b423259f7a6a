-- A connector that reads no metadata (filesystem) refuses a metadata column
-- with Flink's message.
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp')
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
