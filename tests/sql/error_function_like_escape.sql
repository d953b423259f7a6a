-- LIKE's ESCAPE is one character, and an escape in the pattern must come before
-- %, _ or itself: Flink's messages.
CREATE TABLE logs (id INT, line STRING, pat STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/logs.json', 'format' = 'json');
SELECT id FROM logs WHERE line LIKE 'GET!x%' ESCAPE '!';
