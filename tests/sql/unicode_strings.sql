-- Strings are UTF-8. CAST to VARCHAR(n) keeps n characters (Flink counts
-- characters) and never cuts one in two; CHAR(n) is n bytes in weir, padded,
-- with the characters that fit. UPPER and LOWER map all of Unicode as Java's
-- String.toUpperCase / toLowerCase in the root locale do (Flink's):
-- 'straße' is 'STRASSE', a final sigma lowers to 'ς'. A column named with a
-- back quote (`ke``y`: a doubled back quote inside back quotes is one) can
-- be named in any expression.
CREATE TABLE words (`ke``y` STRING, s STRING, n INT)
WITH ('connector' = 'filesystem', 'path' = 'data/unicode.json', 'format' = 'json');

SELECT `ke``y`, UPPER(`ke``y`) AS up, LOWER(`ke``y`) AS low, CHAR_LENGTH(`ke``y`) AS len
FROM words;

SELECT CAST(s AS VARCHAR(3)) AS v3, CAST(s AS VARCHAR(1)) AS v1, CAST(s AS CHAR(3)) AS c3,
       CHAR_LENGTH(CAST(s AS VARCHAR(2))) AS l2
FROM words;

SELECT UPPER('üß') AS a, LOWER('ÀÉÎ') AS b, CAST('😀😀' AS VARCHAR(1)) AS c FROM words WHERE n = 1;

SELECT `ke``y` AS `a``b`, SUM(n) AS total FROM words GROUP BY `ke``y`;
