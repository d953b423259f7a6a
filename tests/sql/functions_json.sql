-- JSON_VALUE, JSON_QUERY and JSON_EXISTS as Flink's (Jackson and Jayway's
-- JsonPath): a path without 'lax' is strict (a missing member is an
-- error: ON ERROR answers); 'lax' makes it empty (ON EMPTY answers); a
-- member named twice is its last value; JSON_QUERY writes compact JSON with
-- each object's keys sorted, decimals as Java's BigDecimal prints them.
SET 'weir.string-capacity' = '200';
CREATE TABLE e (id INT, doc STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/events.json', 'format' = 'json');

SELECT id, JSON_VALUE(doc, '$.user.name'), JSON_VALUE(doc, '$.user.tags[1]'),
       JSON_VALUE(doc, '$.score'), JSON_VALUE(doc, '$.ok' RETURNING BOOLEAN),
       JSON_VALUE(doc, '$.user.age' RETURNING INT) + 1, JSON_VALUE(doc, '$.score' RETURNING DOUBLE),
       JSON_VALUE(doc, '$[0][''k y'']'), JSON_VALUE(doc, '$[-1]')
FROM e;

SELECT id, JSON_VALUE(doc, '$.nope'), JSON_VALUE(doc, 'lax $.nope' DEFAULT 'none' ON EMPTY),
       JSON_VALUE(doc, '$.nope' DEFAULT 'none' ON EMPTY),
       JSON_VALUE(doc, '$.nope' DEFAULT 'err' ON ERROR),
       JSON_VALUE(doc, 'lax $.user' DEFAULT 'object' ON EMPTY),
       JSON_VALUE(doc, 'strict $.user' DEFAULT 'object' ON ERROR),
       JSON_VALUE(doc, '$.user.name' RETURNING INT DEFAULT -1 ON ERROR), JSON_VALUE(doc, '$.n')
FROM e;

SELECT id, JSON_QUERY(doc, '$'), JSON_QUERY(doc, '$.user.tags'), JSON_QUERY(doc, '$.score'),
       JSON_QUERY(doc, '$.score' WITH WRAPPER), JSON_QUERY(doc, '$.user.tags' WITH CONDITIONAL WRAPPER),
       JSON_QUERY(doc, 'lax $.nope' EMPTY OBJECT ON EMPTY), JSON_QUERY(doc, '$.nope' EMPTY ARRAY ON ERROR)
FROM e;

SELECT id, JSON_EXISTS(doc, '$.user'), JSON_EXISTS(doc, '$.n'), JSON_EXISTS(doc, '$.user.tags[5]'),
       JSON_EXISTS(doc, 'strict $.nope' TRUE ON ERROR), JSON_EXISTS(doc, 'lax $.nope' TRUE ON ERROR),
       JSON_EXISTS(doc, '$.x' UNKNOWN ON ERROR)
FROM e;
