-- BINARY(n), VARBINARY(n) and BYTES (VARBINARY of the largest capacity) as
-- Flink has them. Literals X'..' (an even number of hex digits) are
-- BINARY(n) of their bytes; the SQL client shows a binary string as
-- x'0a0b' (Flink's printing cast), the print connector as Java's
-- Arrays.toString of its signed bytes ([10, 11]).
SELECT X'0a0B', X'', CAST(X'01' AS BINARY(3)), CAST(X'010203' AS VARBINARY(2)), CAST(X'010203' AS BINARY(2)),
       X'01' = X'01', X'01' < X'0100', X'ff' > X'7f', X'00' <> X'0000', CAST(X'01' AS BINARY(2)) = X'0100';

-- From and to strings: a string's UTF-8 bytes, bytes as UTF-8 (strict, as
-- Flink's default: TRY_CAST is NULL where CAST fails the job), cut to
-- the target's length, a BINARY(n) padded with zero bytes.
SELECT CAST('héllo' AS BYTES), CAST('ab' AS BINARY(4)), CAST('abc' AS VARBINARY(2)), CAST(X'68c3a96c6c6f' AS STRING),
       CAST(X'616263' AS VARCHAR(2)), CAST(X'6162' AS CHAR(4)) || '|', TRY_CAST(X'ff' AS STRING), CAST(NULL AS BYTES),
       CAST(CAST(X'0102' AS BYTES) AS BINARY(2));

-- CASE and COALESCE take the common type (VARBINARY of the longest);
-- IN and IS DISTINCT FROM compare bytes.
SELECT COALESCE(CAST(NULL AS BINARY(2)), X'010203'), CASE WHEN 1 > 0 THEN X'01' ELSE X'0203' END,
       X'02' IN (X'01', X'02'), X'01' IS DISTINCT FROM X'0100';

-- Columns read from JSON and CSV (base64, as Flink's formats write
-- bytes; an empty CSV field and a JSON null are NULL), grouped by bytes,
-- with MIN, MAX and COUNT.
CREATE TABLE j (k INT, a BYTES, b VARBINARY(8), n STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/types/bytes.json', 'format' = 'json');
CREATE TABLE c (k INT, a BYTES, b BINARY(3), n STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/types/bytes.csv', 'format' = 'csv');
SELECT * FROM j;
SELECT * FROM c WHERE b IS NOT NULL;
SELECT a, COUNT(*), MIN(b), MAX(b), COUNT(b) FROM j GROUP BY a;
SELECT k, MIN(a), MAX(a) FROM c GROUP BY k;

-- Into a sink: BINARY into VARBINARY (implicit), the print connector's
-- Java text.
CREATE TABLE p (k INT, a BYTES, b VARBINARY(3)) WITH ('connector' = 'print');
INSERT INTO p SELECT k, b, CAST(a AS BINARY(2)) FROM c WHERE k < 3;
