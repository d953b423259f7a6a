-- JSON paths: $, .name, ['name'] and [index]; a wildcard is refused by name.
SET 'weir.string-capacity' = '200';
CREATE TABLE e (id INT, doc STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/events.json', 'format' = 'json');
SELECT JSON_QUERY(doc, '$.user[*]') FROM e;
