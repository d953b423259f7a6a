-- An interval's value that is not of its unit: Calcite's message.
SELECT DATE '2024-01-05' + INTERVAL '1-13' YEAR TO MONTH;
