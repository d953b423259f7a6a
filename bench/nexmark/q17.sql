-- q17, auction statistics per day: bids in three price bands and the
-- lowest, highest, mean and total price of each auction each day.
CREATE TABLE q17_sink (
  auction BIGINT, `day` VARCHAR(10), total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT,
  rank3_bids BIGINT, min_price BIGINT, max_price BIGINT, avg_price BIGINT, sum_price BIGINT
) WITH ('connector' = 'blackhole');
INSERT INTO q17_sink
SELECT auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd'),
       COUNT(*),
       COUNT(*) FILTER (WHERE price < 10000),
       COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(*) FILTER (WHERE price >= 1000000),
       MIN(price), MAX(price), AVG(price), SUM(price)
FROM bid
GROUP BY auction, DATE_FORMAT(dateTime, 'yyyy-MM-dd');
