-- Late versions in an event-time temporal join: both tables paced by their
-- rowtime on the virtual clock (so that the order of events is fixed). Order 1
-- (6 s) goes out when the watermark of both reaches 6 s (the rates' reaches
-- 8 s with GBP's first rate), with EUR's rate of 1 s. EUR's rate of 5 s comes
-- after the rates' watermark passed 12 s: it does not change order 1, already
-- out, but order 2 (9 s), still waiting, meets it, and so does order 4 (14 s).
-- The rate of 3 s, later still, is older than the one of 5 s: nothing meets it.
-- unordered
CREATE TABLE orders (oid BIGINT, currency STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_late_orders.json', 'format' = 'json',
      'scan.speed' = '1');
CREATE TABLE rates (currency STRING, rate BIGINT, ts TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_late_rates.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op', 'scan.speed' = '1');

SELECT o.oid, o.ts, r.rate, r.ts AS rate_ts FROM orders o
  JOIN rates FOR SYSTEM_TIME AS OF o.ts r ON o.currency = r.currency;
