-- A watermark strategy that runs ahead of the rows (ts + INTERVAL): the
-- watermark is the largest ts plus 1 s, so a row less than 1 s behind the
-- newest is already late for its 1-second window. Rows, in file order:
-- a 1.0 s, b 2.5 s, c 1.2 s, d 6.0 s, e 2.9 s. Each row's window fires
-- right behind it (a's watermark 2.0 closes [1, 2), b's 3.5 closes [2, 3)),
-- so c and e are late; d is alone in [6, 7).
CREATE TABLE ahead (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts + INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/disorder.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');
SELECT window_start, COUNT(*) AS n, LISTAGG(id) AS ids
FROM TABLE(TUMBLE(TABLE ahead, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
