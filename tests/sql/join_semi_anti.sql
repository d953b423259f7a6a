-- Subqueries in WHERE as Flink's subquery removal plans them: IN and EXISTS a
-- semi join (LeftSemiJoin), NOT IN and NOT EXISTS an anti join (LeftAntiJoin),
-- StreamingSemiAntiJoinOperator. Compared as the final table (each query's rows
-- tagged): an anti join retracts a row whose first partner comes after it.
-- Users 1 and 2 have orders (1 twice), 3 and 5 none; order 104's user is NULL,
-- and so is one user's id.
-- final
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
CREATE TABLE balances (account STRING, balance BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/balances.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');
CREATE TABLE owners (account STRING, owner STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_owners.json', 'format' = 'json');

-- each user once, however many orders it has; a NULL uid is in nothing
SELECT 'in', name FROM users WHERE uid IN (SELECT uid FROM orders);
SELECT 'exists', u.name FROM users u WHERE EXISTS (SELECT * FROM orders o WHERE o.uid = u.uid);
-- the subquery's own WHERE filters its rows; the query's WHERE the rest
SELECT 'exists filtered', u.name FROM users u
WHERE u.name <> 'bob' AND EXISTS (SELECT 1 FROM orders o WHERE o.uid = u.uid AND o.amount > 15);
SELECT 'in filtered', name FROM users WHERE uid IN (SELECT uid FROM orders WHERE amount >= 20)
  AND uid < 3;

-- NOT EXISTS: users without orders, the NULL one too (NULL = x is never true)
SELECT 'not exists', u.name FROM users u
WHERE NOT EXISTS (SELECT * FROM orders o WHERE o.uid = u.uid);
-- NOT IN: an order with a NULL uid makes x NOT IN (...) unknown for every x: no row
SELECT 'not in', name FROM users WHERE uid NOT IN (SELECT uid FROM orders);
-- without the NULL: users 3 and 5, not the NULL one (NULL NOT IN a non-empty set is unknown)
SELECT 'not in non-null', name FROM users
WHERE uid NOT IN (SELECT uid FROM orders WHERE uid IS NOT NULL);
-- an empty subquery: every user, the NULL one too
SELECT 'not in empty', name FROM users WHERE uid NOT IN (SELECT uid FROM orders WHERE amount > 1000);
-- a correlated IN (Flink decorrelates it): x = y and the subquery's
-- correlated conjuncts are the semi join's condition; ann's orders above
-- 15 hold uid 1, bob's above 30 none of uid 2
SELECT 'in correlated', u.name FROM users u
WHERE u.uid IN (SELECT o.uid FROM orders o WHERE o.amount > u.uid * 15);
-- NOT IN correlated: each user's set holds order 104's NULL uid but eve's
-- (above 75: empty) and nobody's (amount > NULL: empty); x NOT IN an
-- empty set is true, for a NULL x too
SELECT 'not in correlated', u.name FROM users u
WHERE u.uid NOT IN (SELECT o.uid FROM orders o WHERE o.amount > u.uid * 15);
-- NOT over a subquery conjunct negates it, parentheses around it go (Flink's
-- subquery removal): NOT (x IN ...) is NOT IN, NOT x IN ... too (NOT binds
-- looser than IN), NOT (NOT EXISTS ...) is EXISTS
SELECT 'not (in)', name FROM users WHERE NOT (uid IN (SELECT uid FROM orders WHERE uid IS NOT NULL));
SELECT 'not x in', name FROM users
WHERE NOT uid IN (SELECT uid FROM orders WHERE uid IS NOT NULL) AND name <> 'eve';
SELECT '(exists)', u.name FROM users u WHERE (EXISTS (SELECT * FROM orders o WHERE o.uid = u.uid));
SELECT 'not (not exists)', u.name FROM users u
WHERE NOT (NOT EXISTS (SELECT * FROM orders o WHERE o.uid = u.uid));
-- uncorrelated EXISTS: whether the subquery has a row at all
SELECT 'exists uncorrelated', name FROM users
WHERE uid = 5 AND EXISTS (SELECT * FROM orders WHERE amount > 45);
SELECT 'not exists uncorrelated', name FROM users
WHERE uid = 5 AND NOT EXISTS (SELECT * FROM orders WHERE amount > 45);

-- updating inputs (a changelog file: a's balance 10 -> 25, b deleted): a row
-- goes and comes back as its partners do, with the kinds of the rows that move it
SELECT 'owner in', owner FROM owners WHERE account IN (SELECT account FROM balances);
SELECT 'owner not in', owner FROM owners WHERE account NOT IN (SELECT account FROM balances);
SELECT 'balance in', account, balance FROM balances
WHERE account IN (SELECT account FROM owners WHERE owner <> 'Cat');
SELECT 'balance not exists', b.account, b.balance FROM balances b
WHERE NOT EXISTS (SELECT * FROM owners o WHERE o.account = b.account AND o.owner <> 'Ann');
