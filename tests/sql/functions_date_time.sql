-- Flink's temporal functions on DATE and TIME values: EXTRACT and YEAR() ...
-- of a DATE (its day's calendar; the units of a day computed as Flink's
-- ExtractCallGen computes them on the number of days), of a TIME (its units
-- of the day), TO_DATE with and without a format (a string that does not read:
-- NULL without one, the day of Long.MIN_VALUE milliseconds with one, as
-- Flink's), TIMESTAMPDIFF with DATE operands and over TIMESTAMP_LTZ (in UTC),
-- leap years, month ends, dates before 1970, NULL in and out.
CREATE TABLE v (id INT, d DATE, t TIME(3))
WITH ('connector' = 'filesystem', 'path' = 'data/dates.json', 'format' = 'json');

SELECT id, YEAR(d), QUARTER(d), MONTH(d), WEEK(d), DAYOFYEAR(d), DAYOFMONTH(d), DAYOFWEEK(d),
       EXTRACT(ISOYEAR FROM d), EXTRACT(ISODOW FROM d), EXTRACT(DECADE FROM d),
       EXTRACT(CENTURY FROM d), EXTRACT(MILLENNIUM FROM d), EXTRACT(DAY FROM d)
FROM v;

SELECT id, HOUR(d), MINUTE(d), SECOND(d), EXTRACT(MILLISECOND FROM d) FROM v;

SELECT id, HOUR(t), MINUTE(t), SECOND(t), EXTRACT(MILLISECOND FROM t), EXTRACT(HOUR FROM t)
FROM v;

SELECT TO_DATE('2024-01-05'), TO_DATE('2024-1-5 10:00:00'), TO_DATE('2024'),
       TO_DATE('2023-02-29'), TO_DATE('x'), TO_DATE(CAST(NULL AS STRING));

SELECT TO_DATE('05/01/2024', 'dd/MM/yyyy'), TO_DATE('2024-02-30', 'yyyy-MM-dd'),
       TO_DATE('20240229 23:59', 'yyyyMMdd HH:mm'), TO_DATE('garbage', 'yyyy-MM-dd'),
       TO_DATE('2024-01-05', CAST(NULL AS STRING));

SELECT TIMESTAMPDIFF(DAY, DATE '2024-01-01', DATE '2024-03-01'),
       TIMESTAMPDIFF(MONTH, DATE '2024-01-31', DATE '2024-02-29'),
       TIMESTAMPDIFF(YEAR, DATE '2020-02-29', DATE '2024-02-28'),
       TIMESTAMPDIFF(HOUR, TIMESTAMP '2024-01-01 10:00:00', DATE '2024-01-01'),
       TIMESTAMPDIFF(MINUTE, DATE '2024-01-01', TIMESTAMP '2024-01-01 00:59:59');

SET 'table.local-time-zone' = 'America/Los_Angeles';

SELECT TIMESTAMPDIFF(HOUR, TO_TIMESTAMP_LTZ(0, 3), TO_TIMESTAMP_LTZ(7200000, 3)),
       TIMESTAMPDIFF(DAY, TO_TIMESTAMP_LTZ(0, 0), TO_TIMESTAMP_LTZ(86400, 0)),
       TIMESTAMPADD(HOUR, 1, TO_TIMESTAMP_LTZ(0, 3)),
       TIMESTAMPADD(MONTH, 1, TO_TIMESTAMP_LTZ(2592000, 0));
