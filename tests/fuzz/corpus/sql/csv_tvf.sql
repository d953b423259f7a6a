-- A CSV table (quoted fields with a comma and a line break, an empty field
-- as NULL, "" as an empty string) read by window TVFs.
CREATE TABLE orders (
  `user` VARCHAR(20),
  amount BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.csv', 'format' = 'csv');

SELECT * FROM orders WHERE amount IS NULL OR amount > 4;

SELECT window_start, window_end, COUNT(*) AS n, SUM(amount) AS s
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECONDS))
GROUP BY window_start, window_end;

SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;

SELECT window_start, window_end, SUM(amount) AS s
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
