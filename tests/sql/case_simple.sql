-- The simple CASE: CASE x WHEN a THEN v ... END compares x with each WHEN's
-- value in turn, as CASE WHEN x = a THEN v ... does (a NULL x matches no
-- WHEN, so the ELSE or NULL).
SET 'weir.string-capacity' = '200';
CREATE TABLE e (id INT, doc STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/events.json', 'format' = 'json');
SELECT id,
       CASE id WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'more' END,
       CASE id + 1 WHEN 3 THEN 'two plus one' END,
       CASE NULLIF(id, 2) WHEN 2 THEN 'never' ELSE 'else' END
FROM e;
