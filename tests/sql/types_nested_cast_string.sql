-- CAST of a ROW, an ARRAY or a MAP to a string, as Flink's RowToStringCastRule,
-- ArrayToStringCastRule and MapToStringCastRule write it: (1, a), [1, 2],
-- {k=v}, each element cast to a string (a BOOLEAN TRUE or FALSE, a NULL one
-- null), nested ones inside; VARCHAR(n) keeps n characters, CHAR(n) pads.
CREATE TABLE n (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, BIGINT>,
  deep ROW(p ROW<q ARRAY<DOUBLE>>, tags ARRAY<STRING>))
WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SET 'weir.string-capacity' = '128';
SELECT id, CAST(r AS STRING), CAST(arr AS STRING), CAST(m AS STRING), CAST(deep AS STRING)
FROM n;

SELECT CAST(ROW(1, 'a', TRUE, 1.5e0, CAST(NULL AS INT)) AS STRING),
       CAST(ARRAY[TRUE, FALSE, NULL] AS STRING), CAST(MAP['a', ARRAY[1]] AS STRING),
       CAST(ARRAY['héllo', 'b'] AS VARCHAR(4)),
       CAST(ROW(DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00.5') AS CHAR(40)),
       CAST(ARRAY[1.50, 2] AS STRING) || '!',
       TRY_CAST(ARRAY[1] AS STRING);
