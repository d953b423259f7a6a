-- The temporal functions in the session's 'table.local-time-zone', where
-- Flink reads it: a TIMESTAMP_LTZ's local date-time for EXTRACT, HOUR() ...
-- (Calcite casts it to TIMESTAMP), DATE_FORMAT, FLOOR/CEIL (the offset at
-- the instant, DateTimeUtils.timestampFloor's: across a DST change the
-- result is an hour off the local midnight, as Flink's is); FROM_UNIXTIME,
-- UNIX_TIMESTAMP(s) and DATE_FORMAT of a string through SimpleDateFormat
-- set to the zone (a time in a spring-forward gap moved on by the gap, one
-- in a fall-back overlap read as standard time); LOCALTIMESTAMP,
-- CURRENT_DATE, CURRENT_TIME, LOCALTIME the job clock's local time (the
-- virtual clock starts at the epoch); CONVERT_TZ's zones are its own.
SET 'table.local-time-zone' = 'Asia/Shanghai';
SELECT TO_TIMESTAMP_LTZ(0, 0), HOUR(TO_TIMESTAMP_LTZ(0, 0)),
       EXTRACT(DAY FROM TO_TIMESTAMP_LTZ(1704038400, 0)), YEAR(TO_TIMESTAMP_LTZ(1704038400, 0)),
       DATE_FORMAT(TO_TIMESTAMP_LTZ(0, 3), 'yyyy-MM-dd HH:mm:ss'),
       FROM_UNIXTIME(0), FROM_UNIXTIME(1704038400, 'yyyy-MM-dd'),
       UNIX_TIMESTAMP('1970-01-01 08:00:00'), UNIX_TIMESTAMP('2024/01/01', 'yyyy/MM/dd'),
       FLOOR(TO_TIMESTAMP_LTZ(1704067199, 0) TO DAY), CEIL(TO_TIMESTAMP_LTZ(1704067199, 0) TO MONTH),
       FLOOR(TO_TIMESTAMP_LTZ(1704067199, 0) TO MINUTE);

SELECT CURRENT_DATE, CURRENT_DATE = DATE '1970-01-01', HOUR(LOCALTIMESTAMP), CURRENT_TIME BETWEEN TIME '08:00:00' AND TIME '08:01:00',
       LOCALTIME = CURRENT_TIME, CAST(CURRENT_TIMESTAMP AS TIMESTAMP(3)) = LOCALTIMESTAMP;

SET 'table.local-time-zone' = 'America/Los_Angeles';
SELECT CURRENT_DATE, HOUR(LOCALTIMESTAMP), FROM_UNIXTIME(0),
       FLOOR(CAST(TIMESTAMP '2024-03-10 12:00:00' AS TIMESTAMP_LTZ(3)) TO DAY),
       CEIL(CAST(TIMESTAMP '2024-11-03 12:00:00' AS TIMESTAMP_LTZ(3)) TO DAY),
       FLOOR(CAST(TIMESTAMP '2024-03-10 12:34:56' AS TIMESTAMP_LTZ(3)) TO HOUR),
       UNIX_TIMESTAMP('2024-11-03 01:30:00'), UNIX_TIMESTAMP('2024-03-10 02:30:00'),
       DATE_FORMAT('2024-03-10 02:30:00', 'yyyy-MM-dd HH:mm:ss'),
       DATE_FORMAT('2024-11-03 01:30:00', 'yyyy-MM-dd HH:mm:ss'),
       CONVERT_TZ('2024-01-01 00:00:00', 'UTC', 'PST');

-- a time zone with a half-hour offset, fixed offsets
SET 'table.local-time-zone' = 'Asia/Kolkata';
SELECT MINUTE(TO_TIMESTAMP_LTZ(0, 0)), FLOOR(TO_TIMESTAMP_LTZ(0, 0) TO HOUR), FROM_UNIXTIME(0);
SET 'table.local-time-zone' = 'GMT-03:00';
SELECT DAYOFMONTH(TO_TIMESTAMP_LTZ(0, 0)), DATE_FORMAT(TO_TIMESTAMP_LTZ(0, 0), 'd HH'),
       UNIX_TIMESTAMP('1969-12-31 21:00:00');

-- TIMESTAMP (no zone) is read as it is, whatever the session's zone
SELECT HOUR(TIMESTAMP '2024-01-01 10:00:00'), FLOOR(TIMESTAMP '2024-01-01 10:30:00' TO DAY),
       DATE_FORMAT(TIMESTAMP '2024-01-01 10:00:00', 'HH:mm');
