-- Flink's string functions (flink-table-runtime's BinaryStringDataUtil and
-- SqlFunctionUtils): characters are UTF-8 code points; NULL in, NULL out
-- (CONCAT_WS skips NULL strings); positions are 1-based and a negative one
-- counts from the end; out-of-range positions give '' or NULL as Flink's.
CREATE TABLE t (id INT, s STRING, sep STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = 'data/strings.json', 'format' = 'json');

-- SUBSTRING (both syntaxes), LEFT, RIGHT, CHAR_LENGTH, REVERSE
SELECT id, SUBSTRING(s FROM 2 FOR 4), SUBSTR(s, -3), SUBSTRING(s, n), SUBSTRING(s, 2, n),
       LEFT(s, n), RIGHT(s, n), CHAR_LENGTH(s), REVERSE(s)
FROM t;

-- CONCAT is NULL with any NULL; CONCAT_WS skips NULLs, NULL separator NULL
SELECT id, CONCAT(s, '|', sep), CONCAT_WS(sep, 'x', s, 'y'), CONCAT_WS('-', s, CAST(NULL AS STRING), sep),
       s || '!'
FROM t;

-- TRIM (the set of characters, from both ends or one), LTRIM, RTRIM
SELECT TRIM('  a b  '), TRIM(LEADING FROM '  x  '), TRIM(TRAILING 'xy' FROM 'xyaxyxy'),
       TRIM(BOTH 'é' FROM 'ééaéé'), LTRIM('  a  '), RTRIM('  a  '), LTRIM('xxayx', 'xy'),
       TRIM('' FROM 'ab'), TRIM(CAST(NULL AS STRING));

-- REPLACE (every match, none overlapping; '' matches between characters),
-- REPEAT, LPAD, RPAD (cut to the length; NULL for a negative one or an
-- empty pad), INITCAP (ASCII words)
SELECT REPLACE('aaaa', 'aa', 'b'), REPLACE('abc', '', '-'), REPLACE('straße', 'ß', 'ss'),
       REPEAT('ab', 3), REPEAT('ab', -1), LPAD('hi', 5, 'xy'), LPAD('hello', 2, 'x'),
       RPAD('hi', 6, 'éü'), LPAD('hi', -1, 'x'), RPAD('hi', 3, ''), LPAD('', 0, 'x'),
       INITCAP('hELLO wORLD-x1y 2z éclair');

-- POSITION / LOCATE (1-based; 0 when not found; '' is at 1), ASCII (the
-- first byte, signed as Java's), CHR (Latin-1, n & 0xFF)
SELECT id, POSITION('o' IN s), LOCATE('o', s, 6), POSITION('' IN s), LOCATE(sep, s),
       ASCII(s), CHR(n + 64)
FROM t;

-- SPLIT_INDEX (commons-lang: every token kept; an index past the end NULL;
-- '' splits at white space; a separator given as a character code)
SELECT id, SPLIT_INDEX(s, sep, 0), SPLIT_INDEX(s, sep, 1), SPLIT_INDEX(s, sep, 4),
       SPLIT_INDEX(s, 44, 3), SPLIT_INDEX(s, '', 1), SPLIT_INDEX(s, sep, -1)
FROM t;

-- Hashes (lower-case hex of the UTF-8 bytes), Base64, UUID's shape
SELECT MD5('The quick brown fox'), SHA1(''), SHA256('ü'), SHA2('abc', 224), SHA512('abc'),
       TO_BASE64('Flink ü'), FROM_BASE64('Rmxpbmsgw7w='), FROM_BASE64(''),
       CHAR_LENGTH(UUID()), SUBSTRING(UUID(), 15, 1), UPPER('ÿ'), LOWER('ÀÉ');
