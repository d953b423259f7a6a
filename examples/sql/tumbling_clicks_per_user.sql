-- Clicks per user and minute: a group window, Flink's classic form.
-- The watermark allows 5 s of disorder and follows every row (on-event),
-- so the click that comes 150 s late (bob, /pay, 10:01:59) is dropped:
-- its minute, 10:01, had fired.
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

SELECT user_id,
       TUMBLE_START(event_time, INTERVAL '1' MINUTE) AS window_start,
       TUMBLE_END(event_time, INTERVAL '1' MINUTE) AS window_end,
       COUNT(*) AS clicks
FROM clicks
GROUP BY user_id, TUMBLE(event_time, INTERVAL '1' MINUTE);
