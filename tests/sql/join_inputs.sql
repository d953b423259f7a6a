-- What a regular join's inputs carry (Flink's FilterJoinRule and column
-- pruning): a WHERE conjunct of an inner join that reads one input alone
-- (its names qualified) filters that input before the join, and an
-- insert-only input keeps only the columns the query reads of it, so that
-- the join's state holds narrow rows. The results are those of filtering
-- and projecting after the join. Compared as a set of rows.
-- unordered
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');

-- one conjunct for each input, one of both (stays after the join)
SELECT u.name, o.oid FROM users u JOIN orders o ON u.uid = o.uid
WHERE o.amount > 15 AND u.name <> 'bob' AND o.oid + u.uid > 0;
EXPLAIN SELECT u.name, o.oid FROM users u JOIN orders o ON u.uid = o.uid
WHERE o.amount > 15 AND u.name <> 'bob' AND o.oid + u.uid > 0;

-- two conjuncts of one input go down together
EXPLAIN SELECT u.name FROM users u JOIN orders o ON u.uid = o.uid
WHERE o.amount > 15 AND o.oid < 103;

-- not pushed: an unqualified name, a random function, an outer join's
-- WHERE
EXPLAIN SELECT u.name FROM users u JOIN orders o ON u.uid = o.uid WHERE amount > 15;
EXPLAIN SELECT u.name FROM users u JOIN orders o ON u.uid = o.uid WHERE o.amount > RAND() * 100;
SELECT u.name, o.amount FROM users u LEFT JOIN orders o ON u.uid = o.uid WHERE o.amount > 15;
EXPLAIN SELECT u.name, o.amount FROM users u LEFT JOIN orders o ON u.uid = o.uid
WHERE o.amount > 15;
-- a conjunct between two that stay goes down (the rest shown as formatted)
EXPLAIN SELECT u.name FROM users u JOIN orders o ON u.uid = o.uid
WHERE o.oid + u.uid > 0 AND u.name <> 'bob' AND o.oid - u.uid > 0;
-- an input with updates keeps its conjunct after the join (an upsert row
-- that leaves the filter must still replace its key's row), and its columns
CREATE TABLE balances (account STRING, balance BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/balances.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');
SELECT b.account, u.uid FROM balances b JOIN users u ON b.account = u.name
WHERE b.balance > 10 AND u.uid < 3;
EXPLAIN SELECT b.account, u.uid FROM balances b JOIN users u ON b.account = u.name
WHERE b.balance > 10 AND u.uid < 3;
-- every conjunct to one input: no WHERE after the join
EXPLAIN SELECT u.name FROM users u JOIN orders o ON u.uid = o.uid
WHERE u.uid > 0 AND o.amount > 15 AND u.uid < 5;

-- o.* keeps all of orders; a column read only by GROUP BY or ORDER BY is kept
SELECT o.*, u.name FROM users u JOIN orders o ON u.uid = o.uid WHERE u.name = 'ann';
EXPLAIN SELECT o.*, u.name FROM users u JOIN orders o ON u.uid = o.uid WHERE u.name = 'ann';
SELECT o.amount, COUNT(*) FROM users u JOIN orders o ON u.uid = o.uid GROUP BY o.amount;
