-- INSERT INTO the print connector (SEMANTICS.md 10): each row as PREFIX +
-- Row.toString(), PREFIX the 'print-identifier' then '> '; TIMESTAMP as
-- Java's LocalDateTime.toString and TIMESTAMP_LTZ as Instant.toString; an
-- updating query prints every kind (the print sink takes them all).
CREATE TABLE orders (
  `user` STRING,
  amount BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');

CREATE TABLE shown (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'print', 'print-identifier' = 'orders');

CREATE TABLE plain (`user` STRING, total BIGINT) WITH ('connector' = 'print');

CREATE TABLE times (t TIMESTAMP(3), l TIMESTAMP_LTZ(3)) WITH ('connector' = 'print');

INSERT INTO shown SELECT `user`, amount, ts FROM orders WHERE amount > 4;

INSERT INTO plain SELECT `user`, SUM(amount) FROM orders GROUP BY `user`;

INSERT INTO times VALUES
  (CAST('2024-01-01 00:00:00' AS TIMESTAMP(3)), CAST('2024-01-01 00:00:00' AS TIMESTAMP_LTZ(3))),
  (CAST('2024-01-01 00:00:07' AS TIMESTAMP(3)), CAST('2024-01-01 00:00:07' AS TIMESTAMP_LTZ(3))),
  (CAST('2024-01-01 10:30:00.250' AS TIMESTAMP(3)), CAST('2024-01-01 10:30:00.250' AS TIMESTAMP_LTZ(3)));
