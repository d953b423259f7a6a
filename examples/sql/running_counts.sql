-- A running count per user: no window, so the result is a changelog that
-- updates (-U old, +U new) as clicks come, and no click is late. HAVING
-- keeps the users past three clicks. A user's first row comes as +U (count
-- 4): its -U (count 3) fails the HAVING, and the filter drops it, as
-- Flink's Calc does over a changelog (docs/SQL.md).
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

SELECT user_id, COUNT(*) AS clicks FROM clicks WHERE url <> '/help' GROUP BY user_id HAVING COUNT(*) > 3;

EXPLAIN CHANGELOG_MODE
SELECT user_id, COUNT(*) AS clicks FROM clicks WHERE url <> '/help' GROUP BY user_id HAVING COUNT(*) > 3;
