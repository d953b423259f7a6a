-- Flink's numeric functions: Java's Math for DOUBLE, Java's integer
-- arithmetic for INT and BIGINT (ABS of the smallest wraps), BigDecimal's
-- HALF_UP for ROUND and DOWN for TRUNCATE on the DOUBLE's shortest decimal
-- text (ROUND(2.675, 2) is 2.68), java.util.Random for a seeded RAND.
CREATE TABLE n (id INT, i INT, b BIGINT, d DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'data/numbers.json', 'format' = 'json');

SELECT id, ABS(i), ABS(b), ABS(d), SIGN(i), SIGN(d), MOD(i, 3), MOD(b, 7), FLOOR(d), CEIL(d),
       CEILING(i)
FROM n;

SELECT id, ROUND(d), ROUND(d, 2), ROUND(d, -1), ROUND(i, -1), ROUND(b, -3), TRUNCATE(d, 1),
       TRUNCATE(i, -1), TRUNCATE(d)
FROM n;

SELECT id, POWER(i, 2), SQRT(d), LN(d), LOG10(ABS(d)), LOG2(ABS(i)), LOG(2, b), EXP(i),
       EXP(d) > 1
FROM n;

-- Literals with a point are DECIMALs: ROUND and TRUNCATE of a DECIMAL are
-- DecimalDataUtils.sround's (HALF_UP) or DOWN, typed by findRoundDecimalType
-- (ROUND(9.995, 2) is DECIMAL(4, 2)).
SELECT ROUND(1.5), ROUND(-1.5), ROUND(0.125, 2), ROUND(1.005, 2), ROUND(123.456, -2),
       TRUNCATE(123.456, -1), ROUND(9.995, 2), TRUNCATE(-0.0001, 2), ROUND(5, 3), ROUND(999999999, -3);

SELECT SIN(0), COS(0), TAN(PI() / 4), COT(PI() / 4), ASIN(1), ACOS(1), ATAN(1), ATAN2(-1, -1),
       SINH(0), COSH(0), TANH(1), DEGREES(PI()), RADIANS(90), PI(), E(), SQRT(-1), LN(-1),
       POWER(0, 0), 1 / 0.0E0;

-- RAND(seed) is Java's new Random(seed): the same values every run, row
-- after row (each call its own generator, kept by the subtask from row to
-- row beside the other items' work); RAND_INTEGER(seed, bound) its
-- nextInt(bound); unseeded RAND in [0, 1).
SELECT id, LPAD(CAST(id AS STRING), 30, 'ab'), RAND(42), RAND_INTEGER(7, 10),
       RAND() >= 0 AND RAND() < 1, RAND_INTEGER(5) < 5, RAND(42)
FROM n;

-- in an aggregate's argument too: each call its own generator per subtask
SELECT SUM(RAND_INTEGER(3, 1000)), MAX(LPAD(CAST(id AS STRING), 30, 'ab')),
       SUM(RAND_INTEGER(3, 1000))
FROM n;
