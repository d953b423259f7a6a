-- A user's visits: sessions that close after 30 s without a click.
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
       SESSION_START(event_time, INTERVAL '30' SECOND) AS session_start,
       SESSION_END(event_time, INTERVAL '30' SECOND) AS session_end,
       COUNT(*) AS clicks
FROM clicks
GROUP BY user_id, SESSION(event_time, INTERVAL '30' SECOND);
