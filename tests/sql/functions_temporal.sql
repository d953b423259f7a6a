-- Flink's temporal functions on TIMESTAMP(3) and TIMESTAMP_LTZ(3) (weir's
-- session time zone is UTC): patterns as Java reads them (DATE_FORMAT of a
-- TIMESTAMP and TO_TIMESTAMP with a format: DateTimeFormatter; FROM_UNIXTIME,
-- UNIX_TIMESTAMP, DATE_FORMAT of a string: SimpleDateFormat), leap years,
-- month ends, ISO weeks across a year, times before 1970, NULL in and out.
CREATE TABLE t (id INT, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), s STRING, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/times.json', 'format' = 'json');

SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS'), DATE_FORMAT(ltz, 'EEE d MMM yy, h:mm a'),
       DATE_FORMAT(ts, 'D w e QQQ ''Q''q'), DATE_FORMAT(s, 'yyyy/MM/dd S u'),
       FROM_UNIXTIME(n), FROM_UNIXTIME(n, 'MMM d, yyyy')
FROM t;

SELECT id, YEAR(ts), QUARTER(ts), MONTH(ts), WEEK(ts), DAYOFYEAR(ts), DAYOFMONTH(ts),
       DAYOFWEEK(ts), HOUR(ts), MINUTE(ts), SECOND(ts), EXTRACT(MILLISECOND FROM ts),
       EXTRACT(ISOYEAR FROM ts), EXTRACT(ISODOW FROM ts), EXTRACT(DECADE FROM ts),
       EXTRACT(CENTURY FROM ts), EXTRACT(MILLENNIUM FROM ltz)
FROM t;

SELECT id, FLOOR(ts TO SECOND), FLOOR(ts TO MINUTE), CEIL(ts TO HOUR), FLOOR(ts TO DAY),
       CEIL(ts TO DAY), FLOOR(ts TO WEEK), FLOOR(ts TO MONTH), CEIL(ts TO QUARTER),
       FLOOR(ltz TO YEAR)
FROM t;

SELECT id, TIMESTAMPADD(MONTH, 1, ts), TIMESTAMPADD(YEAR, -1, ts), TIMESTAMPADD(QUARTER, 4, ts),
       TIMESTAMPADD(WEEK, 2, ts), TIMESTAMPADD(SECOND, 1, ts), ts + INTERVAL '1' DAY,
       TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-03-01 00:00:00'),
       TIMESTAMPDIFF(MONTH, TIMESTAMP '2024-01-31 00:00:00', ts),
       TIMESTAMPDIFF(YEAR, ts, TIMESTAMP '2024-03-01 00:00:00')
FROM t;

-- parsing: TO_TIMESTAMP (NULL for a string that does not read; a day past
-- the month's end is its last day, as java.time's SMART resolver),
-- UNIX_TIMESTAMP (Long.MIN_VALUE for one that does not), TO_TIMESTAMP_LTZ
SELECT id, TO_TIMESTAMP(s), TO_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss'), UNIX_TIMESTAMP(s),
       TO_TIMESTAMP_LTZ(n, 0), TO_TIMESTAMP_LTZ(n * 1000 + 5, 3)
FROM t;

SELECT TO_TIMESTAMP('2023-02-29'), TO_TIMESTAMP('2023-02-32'), TO_TIMESTAMP('2024-01-01 24:00:00'),
       TO_TIMESTAMP('2024-1-5 7:8:9.123456'), TO_TIMESTAMP('2024-01-05T07:08:09'),
       TO_TIMESTAMP('03/05/2024', 'MM/dd/yyyy'), TO_TIMESTAMP('20240305 0708', 'yyyyMMdd HHmm'),
       TO_TIMESTAMP('5 Mar 2024', 'd MMM yyyy'), TO_TIMESTAMP('2024-3-5 7:08:09', 'yyyy-MM-dd HH:mm:ss'),
       TO_TIMESTAMP('garbage', 'yyyy'), UNIX_TIMESTAMP('2024/03/05', 'yyyy/MM/dd'),
       UNIX_TIMESTAMP('2024-02-30 00:00:00'), TO_TIMESTAMP_LTZ(253402300800, 0),
       TO_TIMESTAMP_LTZ(-1.5, 3);

-- time zones from the tz database, as Java's TimeZone names them; an
-- unknown name is GMT; a time in a spring-forward gap moves on by the gap
SELECT CONVERT_TZ('2024-03-31 01:30:00', 'UTC', 'Europe/Berlin'),
       CONVERT_TZ('2024-03-31 02:30:00', 'Europe/Berlin', 'UTC'),
       CONVERT_TZ('2024-10-27 02:30:00', 'Europe/Berlin', 'UTC'),
       CONVERT_TZ('2024-07-04 12:00:00', 'America/New_York', 'Asia/Tokyo'),
       CONVERT_TZ('2050-07-04 12:00:00', 'America/New_York', 'UTC'),
       CONVERT_TZ('2024-01-01 00:00:00', 'GMT+05:30', 'GMT-3'),
       CONVERT_TZ('2024-01-01 00:00:00', 'PST', 'CTT'),
       CONVERT_TZ('2024-01-01 00:00:00', 'Mars/Olympus', 'UTC'),
       CONVERT_TZ('bad', 'UTC', 'UTC');

-- the clock: the job's (the virtual clock starts at the epoch, so these
-- are the same every run); per row, as Flink evaluates them in a stream
SELECT id, CURRENT_TIMESTAMP >= TIMESTAMP '1970-01-01 00:00:00', NOW() = CURRENT_TIMESTAMP,
       LOCALTIMESTAMP = CAST(CURRENT_TIMESTAMP AS TIMESTAMP(3)), UNIX_TIMESTAMP() >= 0
FROM t;

-- in an aggregate's argument too: the group aggregate reads the same clock
SELECT MAX(CURRENT_TIMESTAMP) < TIMESTAMP '1971-01-01 00:00:00', COUNT(*) FROM t;
