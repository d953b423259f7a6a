-- Flink's collection functions on ARRAY and MAP values (its runtime's
-- ArrayContainsFunction, ArrayPositionFunction, ArrayRemoveFunction, ...):
-- a NULL collection gives NULL, a NULL element equals a NULL needle, the
-- needle cast to the element type; ELEMENT of an empty array is NULL.
CREATE TABLE n (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, BIGINT>,
  deep ROW(p ROW<q ARRAY<DOUBLE>>, tags ARRAY<STRING>))
WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');

SELECT id, ARRAY_CONTAINS(arr, 2), ARRAY_CONTAINS(arr, CAST(NULL AS INT)), ARRAY_POSITION(arr, 5),
       ARRAY_REMOVE(arr, 1), ARRAY_DISTINCT(arr), ARRAY_REVERSE(arr), ARRAY_MAX(arr),
       ARRAY_MIN(arr), ARRAY_CONCAT(arr, ARRAY[9])
FROM n;

SELECT id, MAP_KEYS(m), MAP_VALUES(m), MAP_ENTRIES(m), ARRAY_JOIN(deep.tags, '|'),
       ARRAY_JOIN(MAP_KEYS(m), ', ', 'none'), CARDINALITY(MAP_KEYS(m))
FROM n;

SELECT ARRAY_CONTAINS(ARRAY[1, 2, NULL], 2), ARRAY_CONTAINS(ARRAY[1, 2], CAST(NULL AS INT)),
       ARRAY_CONTAINS(ARRAY[1, NULL], CAST(NULL AS INT)), ARRAY_CONTAINS(ARRAY[1.5, 2], 2),
       ARRAY_CONTAINS(ARRAY['a', 'b'], 'b'), ARRAY_POSITION(ARRAY['a', 'b', 'c'], 'c'),
       ARRAY_POSITION(ARRAY[1, 2], CAST(NULL AS INT)), ARRAY_REMOVE(ARRAY[1, 2, 3, NULL, 3], 3),
       ARRAY_REMOVE(ARRAY[1, NULL], CAST(NULL AS INT)), ARRAY_DISTINCT(ARRAY[1, 1, NULL, 2, NULL]),
       ARRAY_MAX(ARRAY[CAST(NULL AS INT)]), ARRAY_MIN(ARRAY['b', 'a', 'é']),
       ELEMENT(ARRAY['only']), ELEMENT(ARRAY_REMOVE(ARRAY[1], 1)),
       ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3], ARRAY[CAST(NULL AS INT)]),
       ARRAY_JOIN(ARRAY['a', NULL, 'c'], '-'), ARRAY_JOIN(ARRAY['a', NULL, 'c'], '-', '?'),
       MAP_KEYS(MAP['a', 1, 'b', 2]), MAP_VALUES(MAP['a', 1, 'b', NULL]),
       MAP_ENTRIES(MAP['a', 1, 'b', NULL]);
