-- LEFT, RIGHT and FULL OUTER regular joins: a row with no partner goes out padded
-- with NULLs (+I[row, null]); its first partner retracts the padded row (-D) and
-- sends the pair; a NULL key meets nothing and stays padded. How the two inputs
-- interleave decides which padded rows come and go on the way: compared as the
-- final table.
-- final
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');

SELECT u.name, o.oid FROM users u LEFT JOIN orders o ON u.uid = o.uid;
SELECT u.name, o.oid FROM users u RIGHT OUTER JOIN orders o ON u.uid = o.uid;
SELECT u.name, o.oid FROM users u FULL OUTER JOIN orders o ON u.uid = o.uid;
-- the filter of ON decides partners: ann's order of 10 leaves it padded
SELECT u.name, o.amount FROM users u LEFT JOIN orders o ON u.uid = o.uid AND o.amount > 10;
