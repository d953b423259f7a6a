-- A VIRTUAL metadata column is not written: an INSERT's column list cannot
-- name it (without a list the query gives the other columns only).
CREATE TABLE events (v BIGINT, `offset` BIGINT METADATA VIRTUAL)
WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');

INSERT INTO events (v, `offset`) VALUES (1, 2);
