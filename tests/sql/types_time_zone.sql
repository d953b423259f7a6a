-- TIMESTAMP_LTZ is an instant, shown in the session's 'table.local-time-zone'
-- (weir's default UTC, where Flink's is the machine's zone: results do not
-- depend on where they run); casts between it and TIMESTAMP, DATE, TIME and
-- strings go through that zone, as Flink's do.
CREATE TABLE l (id BIGINT, ts TIMESTAMP_LTZ(3))
WITH ('connector' = 'filesystem', 'path' = 'data/ltz.json', 'format' = 'json');
SELECT id, ts, CAST(ts AS TIMESTAMP(3)), CAST(ts AS STRING) FROM l WHERE id <= 2;

SET 'table.local-time-zone' = 'America/Los_Angeles';
SELECT id, ts, CAST(ts AS TIMESTAMP(3)), CAST(ts AS DATE), CAST(ts AS TIME(3)),
       ts = TIMESTAMP '2024-01-01 02:00:00' FROM l WHERE id <= 2;
-- 2024-03-10 02:30 does not happen in Los Angeles (the clocks jump from
-- 02:00 to 03:00): Java's rule moves it on by the gap; 2024-11-03 01:30
-- happens twice: the earlier instant (still PDT, 08:30 UTC; an hour on
-- it is 01:30 again, in PST).
SELECT CAST(TIMESTAMP '2024-03-10 02:30:00' AS TIMESTAMP_LTZ(0)),
       CAST(CAST('2024-11-03 01:30:00' AS TIMESTAMP_LTZ(0)) + INTERVAL '1' HOUR AS TIMESTAMP(0)),
       CAST(DATE '2024-07-01' AS TIMESTAMP_LTZ(3));

-- A fixed offset; the print connector writes Instant.toString (UTC,
-- whatever the zone).
SET 'table.local-time-zone' = 'GMT+08:00';
SELECT id, ts FROM l WHERE id = 1;
CREATE TABLE p (id BIGINT, ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'print');
INSERT INTO p SELECT id, ts FROM l WHERE id = 1;
