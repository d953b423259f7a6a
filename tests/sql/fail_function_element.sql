-- ELEMENT of an array of more than one element fails the query, as Flink's
-- generated code throws "Array has more than one element."
SELECT ELEMENT(ARRAY[1, 2]);
