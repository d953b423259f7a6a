-- CAST between nested types of different shapes.
SELECT CAST(ARRAY[1] AS ROW<a INT>);
