CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
SELECT uid FROM users u JOIN orders o ON u.uid = o.uid;
