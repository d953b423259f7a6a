-- q16, channel statistics per day: q15's figures per channel, with the
-- latest minute seen.
CREATE TABLE q16_sink (
  channel VARCHAR(16), `day` VARCHAR(10), `minute` VARCHAR(5),
  total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT,
  total_bidders BIGINT, rank1_bidders BIGINT, rank2_bidders BIGINT, rank3_bidders BIGINT,
  total_auctions BIGINT, rank1_auctions BIGINT, rank2_auctions BIGINT, rank3_auctions BIGINT
) WITH ('connector' = 'blackhole');
INSERT INTO q16_sink
SELECT channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd'), MAX(DATE_FORMAT(dateTime, 'HH:mm')),
       COUNT(*),
       COUNT(*) FILTER (WHERE price < 10000),
       COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(*) FILTER (WHERE price >= 1000000),
       COUNT(DISTINCT bidder),
       COUNT(DISTINCT bidder) FILTER (WHERE price < 10000),
       COUNT(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(DISTINCT bidder) FILTER (WHERE price >= 1000000),
       COUNT(DISTINCT auction),
       COUNT(DISTINCT auction) FILTER (WHERE price < 10000),
       COUNT(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000),
       COUNT(DISTINCT auction) FILTER (WHERE price >= 1000000)
FROM bid
GROUP BY channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd');
