-- A changelog file (Flink's +I/-U/+U/-D in a kind field) into a group
-- aggregate that retracts.
CREATE TABLE balances (account STRING, balance BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/balances.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');

SELECT * FROM balances;

SELECT balance, COUNT(*) AS accounts FROM balances GROUP BY balance;

EXPLAIN CHANGELOG_MODE SELECT balance, COUNT(*) AS accounts FROM balances GROUP BY balance;

EXPLAIN SELECT account FROM balances WHERE balance > 10;
