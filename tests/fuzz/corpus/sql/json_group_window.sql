-- A JSON-lines table with a watermark, its rows, a group aggregate's
-- changelog and a tumbling group window (SEMANTICS.md 9).
CREATE TABLE orders (
  `user` STRING,
  amount BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');

SELECT * FROM orders;

SELECT `user`, SUM(amount) AS total, COUNT(*) AS n FROM orders GROUP BY `user`;

SELECT TUMBLE_START(ts, INTERVAL '5' SECOND) AS w_start,
       TUMBLE_END(ts, INTERVAL '5' SECOND) AS w_end,
       COUNT(*) AS n, SUM(amount) AS s, MAX(amount)
FROM orders
GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);
