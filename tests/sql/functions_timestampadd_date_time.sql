-- TIMESTAMPADD of a DATE and of a TIME, typed as Flink's
-- SqlTimestampAddFunction.deduceType and computed as its code generator
-- adds an interval: a DATE plus days, weeks, months (the day kept or the
-- month's last), quarters or years is a DATE; plus hours, minutes or seconds
-- a TIMESTAMP(6) from its midnight, plus milliseconds a TIMESTAMP(3). A TIME
-- goes around the clock by hours, minutes and seconds and stays as it is by
-- days or months. MILLISECOND on a TIMESTAMP(0) gives a TIMESTAMP(3).
SELECT TIMESTAMPADD(DAY, 1, DATE '2024-01-31') AS a, TIMESTAMPADD(MONTH, 1, DATE '2024-01-31') AS b,
       TIMESTAMPADD(WEEK, -1, DATE '2024-01-03') AS c, TIMESTAMPADD(YEAR, 1, DATE '2024-02-29') AS d,
       TIMESTAMPADD(QUARTER, -1, DATE '2024-05-31') AS e;
SELECT TIMESTAMPADD(HOUR, 25, DATE '2024-01-31') AS a, TIMESTAMPADD(SECOND, -1, DATE '2024-01-01') AS b,
       TIMESTAMPADD(MILLISECOND, 5, DATE '2024-01-31') AS c;
SELECT TIMESTAMPADD(HOUR, 25, TIME '10:00:00') AS a, TIMESTAMPADD(MINUTE, -61, TIME '00:30:00') AS b,
       TIMESTAMPADD(SECOND, 86400, TIME '10:00:00') AS c, TIMESTAMPADD(DAY, 3, TIME '10:00:00') AS d,
       TIMESTAMPADD(MONTH, 3, TIME '10:00:00') AS e;
SELECT TIMESTAMPADD(MILLISECOND, 5, CAST(TIMESTAMP '2024-01-01 00:00:00' AS TIMESTAMP(0))) AS a,
       TIMESTAMPADD(SECOND, 5, CAST(TIMESTAMP '2024-01-01 00:00:00' AS TIMESTAMP(0))) AS b,
       TIMESTAMPADD(DAY, CAST(NULL AS INT), DATE '2024-01-31') AS c;
SELECT d, TIMESTAMPADD(MONTH, n, d) AS m, TIMESTAMPADD(HOUR, n, d) AS h
FROM (VALUES (DATE '2024-03-31', -1), (DATE '2023-12-31', 2)) AS t(d, n);
