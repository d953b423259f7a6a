-- EXPLAIN names an event-time temporal join TemporalJoin (Flink's node), with
-- its changelog mode: the left's (insert-only here). The versioned side is
-- read as it comes, without a ChangelogNormalize.
CREATE TABLE orders (oid BIGINT, currency STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_orders.json', 'format' = 'json');
CREATE TABLE rates (currency STRING, rate BIGINT, ts TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_rates.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');

EXPLAIN CHANGELOG_MODE SELECT o.oid, r.rate FROM orders AS o
  LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
