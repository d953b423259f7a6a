-- FLOOR of a DATE to a day or less is refused: Flink's code generator floors
-- the day number by a day's milliseconds there (1970-01-01 for every date).
SELECT FLOOR(DATE '2024-05-17' TO DAY) AS d;
