-- DATE_FORMAT with a literal pattern of the day's fields only: a subtask
-- formats each day once and gives its text to every row of that day, so
-- rows that go back to a day, cross midnight, or fall before 1970 (the
-- day of a negative instant rounds down) must each still read their own
-- day; a pattern with a time field beside them is formatted for every row.
SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'EEE d MMM yyyy G, D'),
       DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm'), DATE_FORMAT(CAST(ts AS TIMESTAMP_LTZ(3)), 'yyyy/MM/dd')
FROM (VALUES (1, TIMESTAMP '2024-02-28 10:00:00'),
             (2, TIMESTAMP '2024-02-28 23:59:59.999'),
             (3, TIMESTAMP '2024-02-29 00:00:00'),
             (4, TIMESTAMP '2024-02-28 12:00:00'),
             (5, CAST(NULL AS TIMESTAMP(3))),
             (6, TIMESTAMP '2024-02-28 12:00:01'),
             (7, TIMESTAMP '1969-12-31 23:59:59.999'),
             (8, TIMESTAMP '1970-01-01 00:00:00'),
             (9, TIMESTAMP '1969-12-31 00:00:00'),
             (10, TIMESTAMP '1969-12-30 23:59:59.999')) AS t(id, ts);
