-- A STATE_TTL option must name an input of a join of the query (a table's
-- name or its alias), as Flink's hint validation says.
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
SELECT /*+ STATE_TTL('o' = '1d', 'users' = '12 h') */ o.oid, u.name
FROM orders o JOIN users u ON o.uid = u.uid;
