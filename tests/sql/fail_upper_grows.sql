-- A capacity is bytes: UPPER('ǰ') is 'J̌', 3 bytes for 2, longer than a
-- VARCHAR(2) holds. The row fails, naming UPPER, rather than being cut.
CREATE TABLE w (s VARCHAR(2))
WITH ('connector' = 'filesystem', 'path' = 'data/case_grows.json', 'format' = 'json');
SELECT UPPER(s) AS u FROM w;
