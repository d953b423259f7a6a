-- Regular INNER joins of two insert-only tables (Flink's StreamingJoinOperator):
-- each pair of rows with equal keys once, a row repeated in its input joined as
-- often; a NULL key meets nothing. Insert-only, so compared as a set of rows.
-- unordered
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');

SELECT u.name, o.oid, o.amount FROM users u JOIN orders o ON u.uid = o.uid;

-- the rest of ON filters each pair; a comma join takes its condition from WHERE
SELECT u.name, o.oid FROM users AS u INNER JOIN orders AS o ON u.uid = o.uid AND o.amount > 15;
SELECT name, oid FROM users, orders WHERE users.uid = orders.uid AND amount < 15;

-- SELECT *: both sides' columns, a name taken already made unique (uid0)
SELECT * FROM users JOIN orders ON users.uid = orders.uid AND oid = 100;
