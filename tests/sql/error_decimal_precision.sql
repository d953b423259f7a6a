-- A DECIMAL has at most 38 digits (Flink's DecimalType).
SELECT CAST(1 AS DECIMAL(39, 2));
