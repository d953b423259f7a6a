-- Regular joins over an updating input (a changelog file: a's balance 10 -> 25,
-- b deleted): the join retracts what it sent for a row its input retracts, and
-- a group aggregate over the join retracts in turn. Compared as the final table.
-- final
CREATE TABLE balances (account STRING, balance BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/balances.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');
CREATE TABLE owners (account STRING, owner STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_owners.json', 'format' = 'json');

SELECT o.owner, b.balance FROM balances b JOIN owners o ON b.account = o.account;
SELECT o.owner, b.balance FROM owners o LEFT JOIN balances b ON o.account = b.account;
SELECT b.balance, COUNT(*) AS owners FROM balances b JOIN owners o ON b.account = o.account
GROUP BY b.balance;
