-- EXPLAIN names the join nodes as Flink does, with their changelog modes:
-- an inner join of insert-only inputs is insert-only, an outer join or an
-- updating input makes it retracting; an interval join is insert-only.
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');
CREATE TABLE impressions (ad BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_impressions.json', 'format' = 'json');
CREATE TABLE clicks (cid STRING, ad BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_clicks.json', 'format' = 'json');
CREATE TABLE balances (account STRING, balance BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/balances.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');

EXPLAIN CHANGELOG_MODE SELECT u.name, o.oid FROM users u JOIN orders o ON u.uid = o.uid;
EXPLAIN CHANGELOG_MODE SELECT u.name, o.oid FROM users u FULL JOIN orders o ON u.uid = o.uid;
EXPLAIN CHANGELOG_MODE SELECT b.balance, u.name FROM balances b JOIN users u ON b.account = u.name;
EXPLAIN CHANGELOG_MODE SELECT c.cid FROM impressions i JOIN clicks c
  ON i.ad = c.ad AND c.ts > i.ts AND c.ts <= i.ts + INTERVAL '10' SECOND;
-- bounds on a regular join's timestamps (not both time attributes) filter it
EXPLAIN CHANGELOG_MODE SELECT c.cid FROM impressions i JOIN clicks c ON i.ad = c.ad AND c.ts > i.ts;
