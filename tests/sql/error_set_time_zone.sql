-- 'table.local-time-zone' takes Flink's zone names: a TZDB name, 'UTC' or
-- 'GMT+08:00'; an abbreviation is refused with Flink's message.
SET 'table.local-time-zone' = 'PST';
