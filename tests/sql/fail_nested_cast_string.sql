-- CAST of a nested value to STRING keeps its whole text: a text longer than
-- the string capacity fails the query, never cut (TRY_CAST gives NULL).
SELECT TRY_CAST(ARRAY['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbb'] AS STRING);
SELECT CAST(ARRAY['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbb'] AS STRING);
