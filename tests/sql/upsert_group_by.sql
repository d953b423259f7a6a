-- An upsert changelog file (+I/+U by key, -D with the key only, no -U):
-- ChangelogNormalize on the primary key makes the -U rows and drops the
-- repeated +U and the -D of a key never seen, so the group aggregate over
-- it retracts exactly (SEMANTICS.md 9). The normalize sits right after the
-- source, as in Flink's plans: a projection that drops the key still reads
-- a retracting changelog.
CREATE TABLE prices (item STRING, price BIGINT, PRIMARY KEY (item) NOT ENFORCED)
WITH ('connector' = 'filesystem', 'path' = 'data/prices.json', 'format' = 'json',
      'changelog-mode' = 'upsert', 'changelog.kind-field' = 'op');

SELECT * FROM prices;

SELECT price, COUNT(*) AS items FROM prices GROUP BY price;

EXPLAIN CHANGELOG_MODE SELECT price, COUNT(*) AS items FROM prices GROUP BY price;

SELECT price FROM prices;

SELECT price, COUNT(*) AS items FROM (SELECT price FROM prices) GROUP BY price;

EXPLAIN CHANGELOG_MODE SELECT price FROM prices;
