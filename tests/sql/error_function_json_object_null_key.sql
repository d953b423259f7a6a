-- JSON_OBJECT's key may not be NULL: a key that can be is refused (Calcite's message).
SELECT JSON_OBJECT(k VALUE 1) AS o FROM (VALUES ('a'), (CAST(NULL AS STRING))) AS t(k);
