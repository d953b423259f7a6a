-- A derived table's column list names as many columns as it has (Calcite's message).
SELECT * FROM (SELECT 1 AS a, 2 AS b) AS t(x);
