-- DATE, TIME(p) and TIMESTAMP(p) as Flink has them. Literals take the
-- precision of the digits written and print with it: a TIME's fraction to
-- its last digit that is not 0 (at least one), a TIMESTAMP's to at least
-- p digits (Flink's DateTimeUtils).
SELECT DATE '2024-02-29', TIME '10:00:00', TIME '10:00:00.5', TIMESTAMP '2024-01-05 10:00:00',
       TIMESTAMP '2024-01-05 10:00:00.120', TIMESTAMP '2024-01-05 10:00:00.123456789',
       CAST(TIME '10:00:00' AS TIME(3)), CAST(TIMESTAMP '2024-01-05 10:00:00' AS TIMESTAMP(6));

-- A datetime +- an interval keeps its type: months keep the day of the
-- month or cut it to the month's last (leap years: 2024 and 2000, not
-- 1900), a DATE moves by whole days of a day-time interval, a TIME goes
-- around the clock.
SELECT DATE '2024-01-31' + INTERVAL '1' MONTH, DATE '2023-01-31' + INTERVAL '1' MONTH,
       DATE '2024-02-29' + INTERVAL '1' YEAR, DATE '2024-03-31' - INTERVAL '1' MONTH,
       DATE '2000-02-28' + INTERVAL '1' DAY, DATE '1900-02-28' + INTERVAL '1' DAY,
       INTERVAL '2' MONTH + DATE '2024-12-31', DATE '2024-01-05' - INTERVAL '1' HOUR,
       DATE '2024-01-05' + INTERVAL '49' HOUR;
SELECT TIMESTAMP '2024-01-31 23:59:59.999' + INTERVAL '1-1' YEAR TO MONTH,
       TIMESTAMP '2024-12-31 23:00:00' + INTERVAL '2' HOUR,
       TIMESTAMP '2024-03-01 00:00:00.000001' - INTERVAL '1' DAY,
       TIME '23:30:00' + INTERVAL '1' HOUR, TIME '00:30:00' - INTERVAL '1' HOUR,
       INTERVAL '1' YEAR - INTERVAL '13' MONTH + DATE '2024-02-29';

-- CAST: from strings as Flink reads them (parseDate's y-m-d parts, a bare
-- year; parseTime's h:m[:s]; parseTimestampData's fraction cut to the
-- precision), between the datetimes (a timestamp's day and time of day; a
-- DATE's midnight; a TIME on 1970-01-01; a lower precision cut toward zero,
-- as Flink's truncate), to strings as Flink writes them.
SELECT CAST('2024-1-5' AS DATE), CAST('2024' AS DATE), CAST(' 2024-01-05 10:00 ' AS DATE),
       CAST('10:30' AS TIME), CAST('2024-01-05 10:00:00.123456789' AS TIMESTAMP(6)),
       TRY_CAST('2024-02-30' AS DATE), TRY_CAST('x' AS TIMESTAMP(3));
SELECT CAST(TIMESTAMP '2024-01-05 10:20:30.999' AS DATE),
       CAST(TIMESTAMP '2024-01-05 10:20:30.999' AS TIME(3)),
       CAST(DATE '2024-01-05' AS TIMESTAMP(0)), CAST(TIME '10:20:30' AS TIMESTAMP(3)),
       CAST(TIMESTAMP '1969-12-31 23:59:58.500' AS TIMESTAMP(0)),
       CAST(TIMESTAMP '2024-01-05 10:00:00.987654321' AS TIMESTAMP(3)),
       CAST(DATE '2024-01-05' AS STRING) || '|' || CAST(TIME '10:00:00' AS STRING) || '|' ||
       CAST(TIMESTAMP '2024-01-05 10:00:00' AS STRING);

-- Comparisons: two precisions compare as values; a DATE meets a
-- TIMESTAMP at its midnight.
SELECT DATE '2024-01-05' < DATE '2024-01-06',
       TIMESTAMP '2024-01-05 10:00:00.123' < TIMESTAMP '2024-01-05 10:00:00.123000001',
       DATE '2024-01-05' = TIMESTAMP '2024-01-05 00:00:00', TIME '10:00:00' < TIME '10:00:00.001',
       TIMESTAMP '2024-01-05 10:00:00' IN (TIMESTAMP '2024-01-05 10:00:00.000', NULL);

-- Columns of each type from JSON and CSV (their SQL text; a TIMESTAMP_LTZ
-- in UTC with or without its 'Z'), grouped by a DATE, MIN and MAX of
-- each.
CREATE TABLE j (id INT, d DATE, t TIME(3), ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(3))
WITH ('connector' = 'filesystem', 'path' = 'data/types/events.json', 'format' = 'json');
CREATE TABLE c (id INT, d DATE, t TIME(3), ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(3))
WITH ('connector' = 'filesystem', 'path' = 'data/types/events.csv', 'format' = 'csv');
SELECT * FROM j;
SELECT * FROM c WHERE d >= DATE '2024-03-01' OR ts < TIMESTAMP '1970-01-01 00:00:00';
SELECT d, COUNT(*) AS n, MIN(t), MAX(t), MIN(ts), MAX(ts), MAX(ltz) FROM j GROUP BY d;

-- The print connector writes Java's toString of each value: LocalDate,
-- LocalTime (10:00, seconds only when not 0), LocalDateTime with a 'T',
-- Instant in UTC with a 'Z'.
CREATE TABLE p (id INT, d DATE, t TIME(3), ts TIMESTAMP(6), ltz TIMESTAMP_LTZ(3))
WITH ('connector' = 'print');
INSERT INTO p SELECT * FROM j;
