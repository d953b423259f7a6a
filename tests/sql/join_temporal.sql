-- Event-time temporal joins (Flink's TemporalRowTimeJoinOperator): each order
-- meets the rate of its currency valid at the order's time, the version of
-- largest time at or below it, from a versioned table (a changelog file with a
-- PRIMARY KEY and a watermark). YEN is deleted at 15 s and back at 25 s: order
-- 4 (16 s) has no rate, dropped by the inner join and padded by the LEFT join;
-- USD never has one. A -U is no version. Insert-only, the order's rowtime the
-- time attribute (a window over it works). Compared as sets.
-- unordered
CREATE TABLE orders (oid BIGINT, currency STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_orders.json', 'format' = 'json');
CREATE TABLE rates (currency STRING, rate BIGINT, ts TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_rates.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');

SELECT o.oid, o.currency, o.amount * r.rate AS price, o.ts, r.ts AS rate_ts
FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;

SELECT o.oid, r.rate FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts r
  ON o.currency = r.currency;

-- the rest of ON is checked on the pair: a LEFT join pads a row whose version fails it
SELECT o.oid, r.rate FROM orders o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts r
  ON o.currency = r.currency AND r.rate > 100 AND o.amount < 5;

CREATE VIEW priced AS SELECT o.ts, o.amount * r.rate AS price FROM orders o
  JOIN rates FOR SYSTEM_TIME AS OF o.ts r ON o.currency = r.currency;
SELECT window_start, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE priced, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;

-- a deduplication keeping each currency's last row is a versioned table too
CREATE TABLE rate_log (currency STRING, rate BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/temporal_rate_log.json', 'format' = 'json');
CREATE VIEW last_rates AS SELECT currency, rate, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY ts DESC) AS rn FROM rate_log)
WHERE rn = 1;
SELECT o.oid, r.rate, r.ts FROM orders o LEFT JOIN last_rates FOR SYSTEM_TIME AS OF o.ts r
  ON o.currency = r.currency;
