-- Clicks so far in each 5-minute period, updated every minute:
-- a CUMULATE window TVF.
CREATE TABLE clicks (
  user_id STRING,
  url STRING,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path' = 'clicks.jsonl',
  'format' = 'json',
  'scan.watermark.emit.strategy' = 'on-event'
);

SELECT window_start, window_end, COUNT(*) AS clicks, MAX(event_time) AS last_click
FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(event_time), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE))
GROUP BY window_start, window_end;
