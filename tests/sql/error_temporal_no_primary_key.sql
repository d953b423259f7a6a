-- FOR SYSTEM_TIME AS OF a rowtime is an event-time temporal join, whose
-- versioned table needs a primary key (Flink's message).
CREATE TABLE orders (id BIGINT, currency STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
CREATE TABLE rates (currency STRING, rate DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/prices.json', 'format' = 'json');
SELECT o.id, r.rate FROM orders AS o
JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
