-- EXPLAIN shows a subquery in WHERE as Flink's plan does: IN and EXISTS a
-- LeftSemiJoin, NOT IN and NOT EXISTS a LeftAntiJoin (the left's columns only),
-- with their changelog modes: a semi join of insert-only inputs is insert-only,
-- an anti join retracts. NOT IN's condition holds no equality to key on.
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');

EXPLAIN CHANGELOG_MODE SELECT name FROM users WHERE uid IN (SELECT uid FROM orders);
EXPLAIN CHANGELOG_MODE SELECT u.name FROM users u
WHERE NOT EXISTS (SELECT * FROM orders o WHERE o.uid = u.uid AND o.amount > 15);
EXPLAIN CHANGELOG_MODE SELECT name FROM users WHERE uid NOT IN (SELECT uid FROM orders);
