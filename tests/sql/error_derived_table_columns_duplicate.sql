-- A derived table's column list names each column once (Calcite's message).
SELECT * FROM (VALUES (1, 2)) AS t(x, x);
