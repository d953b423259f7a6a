-- s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT], as Flink's (SqlJsonUtils'
-- isJsonValue ... isJsonObject: Jackson reads the string, text after its
-- first value ignored; VALUE when no kind is named). Its result is never
-- NULL: a NULL string is FALSE, with NOT too.
SELECT '1' IS JSON AS a, '[]' IS JSON AS b, '{}' IS JSON AS c, '"abc"' IS JSON AS d,
       'abc' IS JSON AS e, CAST(NULL AS STRING) IS JSON AS f, '' IS JSON AS g,
       '[1, 2' IS JSON AS h;
SELECT '1' IS JSON SCALAR AS a, ' null ' IS JSON SCALAR AS b, '1' IS JSON ARRAY AS c,
       '[1]' IS JSON ARRAY AS d, '{}' IS JSON OBJECT AS e, '[]' IS JSON OBJECT AS f,
       '{}' IS NOT JSON OBJECT AS g, 'x' IS NOT JSON AS h, CAST(NULL AS STRING) IS NOT JSON AS i;
SELECT id, doc IS JSON OBJECT AS obj FROM (VALUES (1, '{"a": 1}'), (2, 'not json')) AS t(id, doc);
