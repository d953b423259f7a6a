-- DECIMAL(p, s) as Flink has it: exact, rounded HALF_UP to its type's
-- scale, NULL where a result has more digits than its type holds. A
-- literal with a point is a DECIMAL of its digits (1.50 is DECIMAL(3, 2));
-- one with an exponent a DOUBLE.
SELECT 1.50, 0.1 + 0.2, 0.001, 99999999999999999999, 1.5E0 + 1,
       CAST(1.005 AS DECIMAL(3, 2)), CAST(-1.005 AS DECIMAL(3, 2)), CAST(2.5 AS DECIMAL(1, 0)),
       CAST(-2.5 AS DECIMAL(1, 0)), CAST(9.5 AS DECIMAL(1, 0)), CAST(123.4 AS DECIMAL(3, 1));

-- Result types as Flink's LogicalTypeMerging finds them: + keeps the most
-- whole digits and scale, * adds precisions and scales, / keeps a scale of
-- at least 6, and past 38 digits scale is given up to keep the whole
-- part (to 6 at least). An integer is the DECIMAL of its digits.
SELECT 1.50 * 2.25, 10.0 / 3, 1 / 3.0, 7 % 2.5, -7.5 % 2, CAST(1 AS DECIMAL(38, 10)) / 3,
       CAST(2 AS DECIMAL(38, 0)) * CAST(3 AS DECIMAL(38, 0)), CAST(1 AS DECIMAL(38, 37)) + 1,
       CAST(99999999999999999999999999999999999999 AS DECIMAL(38, 0)) + 1;

-- Division rounds to 38 significant digits first, then to its scale, as
-- Java's BigDecimal.divide(MathContext(38, HALF_UP)) then setScale do.
SELECT CAST(2 AS DECIMAL(38, 0)) / CAST(3 AS DECIMAL(38, 0)),
       CAST(1 AS DECIMAL(20, 18)) / CAST(7 AS DECIMAL(10, 0));

-- CAST: into integers truncated toward zero (and wrapped), into DOUBLE,
-- from DOUBLE through its shortest digits, from strings as Flink's
-- toDecimal reads them, to strings plain; TRY_CAST of a string that does
-- not fit is NULL.
SELECT CAST(12.99 AS INT), CAST(-12.99 AS TINYINT), CAST(300.5 AS TINYINT), CAST(12.5 AS DOUBLE),
       CAST(0.1E0 AS DECIMAL(20, 19)), CAST(CAST(0.1 AS FLOAT) AS DECIMAL(10, 9)),
       CAST(' -1.25e1 ' AS DECIMAL(5, 2)), TRY_CAST('123.45' AS DECIMAL(4, 2)),
       CAST(CAST(0.000000012 AS DECIMAL(10, 9)) AS STRING), CAST(TRUE AS DECIMAL(3, 1)),
       CAST(0.0 AS BOOLEAN);

-- Comparisons are exact across scales; with an integer too; with a DOUBLE
-- the DECIMAL is a DOUBLE.
SELECT 1.10 = 1.1, 0.3 = 0.1 + 0.2, 2 > 1.99999, 0.1 = 0.1E0, 1.5 IN (1, 1.50, NULL),
       CAST(1 AS DECIMAL(38, 37)) < CAST(2 AS DECIMAL(38, 0));

-- Columns from CSV and JSON (a JSON number or string), grouped, with SUM
-- (DECIMAL(38, s)), AVG (DECIMAL(38, max(6, s))), MIN, MAX, and GROUP BY a
-- DECIMAL.
CREATE TABLE c (id INT, cur STRING, amount DECIMAL(10, 2), rate DECIMAL(4, 2), big DECIMAL(38, 12))
WITH ('connector' = 'filesystem', 'path' = 'data/types/money.csv', 'format' = 'csv');
CREATE TABLE j (id INT, cur STRING, amount DECIMAL(10, 2), rate DECIMAL(4, 2), big DECIMAL(38, 12))
WITH ('connector' = 'filesystem', 'path' = 'data/types/money.json', 'format' = 'json');
SELECT * FROM c;
SELECT * FROM j WHERE amount > 0 AND big IS NOT NULL;
SELECT cur, SUM(amount), AVG(amount), MIN(rate), MAX(big), SUM(amount * rate), COUNT(rate)
FROM j GROUP BY cur;
SELECT rate, COUNT(*) FROM c GROUP BY rate;

-- Into a sink: an INT into a DECIMAL column (implicit, exact), a DECIMAL
-- into a DOUBLE; the print connector writes BigDecimal.toString (1E-8).
CREATE TABLE p (a DECIMAL(12, 2), b DOUBLE, c DECIMAL(10, 9)) WITH ('connector' = 'print');
INSERT INTO p SELECT id, amount, CAST(0.00000001 AS DECIMAL(10, 9)) FROM c WHERE id = 1;
