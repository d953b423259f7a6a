-- q14, calculation: converted prices in a band, the hour of day as a word,
-- and count_char, a scalar function written in C that the runner registers
-- (how many times a character occurs in a string).
CREATE TABLE q14_sink (auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), bidTimeType VARCHAR(9),
                       dateTime TIMESTAMP(3), extra VARCHAR(128), c_counts BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO q14_sink
SELECT auction, bidder, price * 0.908,
       CASE WHEN HOUR(dateTime) BETWEEN 8 AND 18 THEN 'dayTime'
            WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
            ELSE 'otherTime' END,
       dateTime, extra, count_char(extra, 'c')
FROM bid
WHERE price * 0.908 > 1000000 AND price * 0.908 < 50000000;
