-- An idle file partition: data/quiet holds two files, one partition each,
-- paced by their rowtime ('scan.speed' = '1', on weir's virtual clock).
-- p1.csv sends two rows at once and then nothing until 5.8 s; p0.csv goes on
-- every 0.5 s and, after 2.5 s, sends a row of 1.2 s.
-- Without an idle timeout p1's watermark (0.1 s) holds the window back:
-- every window waits for p1's next row, and the 1.2 s row is in time.
-- With 'scan.watermark.idle-timeout' p1 is idle after 0.5 s, the watermark
-- follows p0, the window [1 s, 2 s) fires at 2 s, and the 1.2 s row is
-- late and dropped: idleness trades waiting for lateness (SEMANTICS.md 3).
CREATE TABLE held (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/quiet', 'format' = 'csv',
      'scan.speed' = '1');
CREATE TABLE released (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/quiet', 'format' = 'csv',
      'scan.speed' = '1', 'scan.watermark.idle-timeout' = '500 ms');

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE held, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE released, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
