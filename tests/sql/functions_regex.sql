-- Regular expressions as Flink's (Java's java.util.regex syntax, read by
-- PCRE2): REGEXP_EXTRACT (the first match's group; NULL for no match, a
-- group out of range or an invalid pattern), REGEXP_REPLACE (every match,
-- the replacement taken as it is), REGEXP (a match anywhere; FALSE for an
-- empty or invalid pattern); LIKE with % and _ (and ESCAPE), SIMILAR TO.
-- A literal pattern is compiled once; a pattern that is a column per row.
CREATE TABLE logs (id INT, line STRING, pat STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/logs.json', 'format' = 'json');

SELECT id, REGEXP_EXTRACT(line, '^(\w+) (\S+) (\d{3})', 2) AS path,
       REGEXP_EXTRACT(line, '(\d+)ms$', 1) AS ms,
       REGEXP_EXTRACT(line, '^(\w+)') AS whole,
       REGEXP_EXTRACT(line, '(x)?(GET)', 1) AS unmatched_group,
       REGEXP_EXTRACT(line, '(\w+)', 5) AS out_of_range,
       REGEXP_EXTRACT(line, pat, 1) AS by_column
FROM logs;

SELECT id, REGEXP_REPLACE(line, '\d', '#') AS digits, REGEXP_REPLACE(line, '^\w+', '$1') AS literal,
       REGEXP_REPLACE(line, 'x*', '-') AS empty_matches, REGEXP_REPLACE(line, pat, '<>') AS by_column,
       REGEXP(line, '\d{3}') AS three_digits, REGEXP(line, pat) AS matches_column
FROM logs;

SELECT id, line LIKE 'GET%' AS get, line LIKE '%ms' AS ms, line NOT LIKE '%/api/%' AS not_api,
       line LIKE '%100!%' ESCAPE '!' AS percent, line LIKE 'multi_line%' AS underscore,
       line SIMILAR TO '(GET|POST) %' AS verb, line SIMILAR TO '%[[:digit:]]{3} %' AS status
FROM logs;

SELECT 'abc' LIKE 'a_c', 'a\c' LIKE 'a\c', 'a_c' LIKE 'a#_c' ESCAPE '#', 'abc' LIKE 'a#_c' ESCAPE '#',
       'éà' LIKE '__', 'éà' LIKE '_', '' LIKE '%', '' LIKE '_', CAST(NULL AS STRING) LIKE 'a',
       'aaa' SIMILAR TO 'a+', 'ab' SIMILAR TO 'a', 'ab' SIMILAR TO 'a_';
