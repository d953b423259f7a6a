-- A STATE_TTL option's value is a duration ('1d', '12 h', '30 min').
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
SELECT /*+ STATE_TTL('o' = 'a day') */ o.oid, u.name
FROM orders o JOIN users u ON o.uid = u.uid;
