-- Clicks per page over the last minute, every 30 s: a HOP window TVF.
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

SELECT window_start, window_end, url, COUNT(*) AS clicks
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(event_time), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, url;
