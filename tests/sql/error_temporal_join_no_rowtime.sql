-- An event-time temporal join's versioned table needs a rowtime (a watermark).
CREATE TABLE orders (oid BIGINT, currency STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_orders.json', 'format' = 'json');
CREATE TABLE rates (currency STRING, rate BIGINT, ts TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_rates.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');
SELECT o.oid, r.rate FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.ts r
  ON o.currency = r.currency;
