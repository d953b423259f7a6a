-- JSON_OBJECT and JSON_ARRAY as Flink's JsonObjectCallGen and JsonArrayCallGen
-- with SqlJsonUtils.serializeJson: each value a JSON value of its type (a
-- number, true/false, a string; a TIMESTAMP ISO-8601, a TIMESTAMP_LTZ with a
-- Z; bytes base64; a ROW or a MAP an object, an ARRAY an array), a nested
-- JSON_OBJECT or JSON_ARRAY call as JSON, not a string; the keys of every
-- object sorted, a key given twice once with its last value; a FLOAT or
-- DOUBLE as BigDecimal.valueOf writes it. JSON_OBJECT keeps a NULL value
-- (NULL ON NULL) unless ABSENT ON NULL; JSON_ARRAY drops it (ABSENT ON NULL)
-- unless NULL ON NULL. The result is a STRING, never NULL. JSON_STRING at the end.
SET 'weir.string-capacity' = '300';
SELECT JSON_OBJECT('K1' VALUE 'V1', 'K2' VALUE 'V2') AS a,
       JSON_OBJECT(KEY 'b' VALUE 1, KEY 'a' VALUE 2.50, 'c' VALUE TRUE) AS b,
       JSON_OBJECT() AS c, JSON_ARRAY() AS d;
SELECT JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) NULL ON NULL) AS a,
       JSON_OBJECT(KEY 'K1' VALUE CAST(NULL AS STRING) ABSENT ON NULL) AS b,
       JSON_ARRAY(CAST(NULL AS STRING) NULL ON NULL) AS c,
       JSON_ARRAY(CAST(NULL AS STRING)) AS d;
SELECT JSON_OBJECT(KEY 'K1' VALUE JSON_OBJECT(KEY 'K2' VALUE 'V')) AS a,
       JSON_ARRAY(JSON_ARRAY(1), JSON_OBJECT('z' VALUE 1, 'y' VALUE 2)) AS b,
       JSON_ARRAY(CONCAT('', JSON_ARRAY(1))) AS c,
       JSON_OBJECT('a' VALUE 1, 'a' VALUE 2) AS d;
SELECT JSON_ARRAY(1.5E0, CAST(0.1 AS FLOAT), 1E10, 0.00000001, -0.0,
                  CAST(-128 AS TINYINT), 9223372036854775807) AS numbers;
SELECT JSON_ARRAY(TIMESTAMP '2024-01-05 10:00:00.120', TIMESTAMP '2024-01-05 10:00:00',
                  CAST(TIMESTAMP '2024-01-05 10:00:00.000001' AS TIMESTAMP(6)),
                  CAST(TIMESTAMP '2024-01-05 10:00:00' AS TIMESTAMP_LTZ(3)), X'0102') AS times;
SELECT JSON_ARRAY(ARRAY[1, NULL], ROW(1, 'a'), MAP['k', 1, 'a', NULL]) AS nested;
SELECT JSON_OBJECT('q"\é' VALUE 'tab	end', 'ключ' VALUE 'значение') AS escaped;
SELECT id, JSON_OBJECT('id' VALUE id, 'name' VALUE name) AS o,
       JSON_ARRAY(id, name) AS a, JSON_ARRAY(id, name NULL ON NULL) AS n
FROM (VALUES (1, 'one'), (2, CAST(NULL AS STRING))) AS t(id, name);
-- JSON_STRING: one value as JSON text (Flink's JsonStringCallGen), NULL for NULL
SELECT JSON_STRING(1) AS a, JSON_STRING(TRUE) AS b, JSON_STRING('Hello, World!') AS c,
       JSON_STRING(ARRAY[1, 2]) AS d, JSON_STRING(CAST(NULL AS INT)) AS e,
       JSON_STRING(JSON_OBJECT('b' VALUE 1, 'a' VALUE 2)) AS f, JSON_STRING(1.5E0) AS g;
