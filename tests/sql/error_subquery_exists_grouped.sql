-- EXISTS reads one table, view or subquery filtered by WHERE.
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
SELECT u.name FROM users u
WHERE EXISTS (SELECT o.uid FROM orders o WHERE o.uid = u.uid GROUP BY o.uid);
