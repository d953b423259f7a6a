-- SET 'pipeline.auto-watermark-interval' = '0' disables periodic watermarks,
-- as in Flink. Rows a 1.0 s, b 2.5 s, d 4.0 s, c 1.5 s, paced by their
-- rowtime (scan.speed) on the virtual clock: with the default interval
-- (200 ms) the watermark reaches 2.5 s while the source waits for d, the
-- window [1 s, 2 s) fires with a alone, and c is late and dropped; with no
-- periodic watermark the only one is the final, and c counts. An on-event
-- table keeps its watermarks either way (c late after d).
CREATE TABLE paced (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/late_after_pause.json', 'format' = 'json',
      'scan.speed' = '1');
CREATE TABLE on_event (id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/late_after_pause.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE paced, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;

SET 'pipeline.auto-watermark-interval' = '0';

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE paced, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE on_event, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
