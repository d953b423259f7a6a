-- A needle that does not cast implicitly to the array's element type is
-- refused (Flink's input type strategy).
SELECT ARRAY_CONTAINS(ARRAY[1, 2], 'x');
