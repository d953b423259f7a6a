-- CAST of a string that is no DECIMAL of the type fails the job with
-- Flink's reason (BinaryStringDataUtil.toDecimal says "Overflow." for
-- whatever it cannot take), the value and the column named.
CREATE TABLE c (id INT, cur STRING, amount STRING, rate STRING, big STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/types/money.csv', 'format' = 'csv');
SELECT id, CAST(amount AS DECIMAL(4, 2)) FROM c;
