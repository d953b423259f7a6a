-- q9, winning bids: each auction with its highest bid made while it was
-- open (the earliest of equal prices), a Top-1 over a join.
CREATE TABLE q9_sink (
  id BIGINT, itemName VARCHAR(24), description VARCHAR(104), initialBid BIGINT, reserve BIGINT,
  dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR(640),
  auction BIGINT, bidder BIGINT, price BIGINT, bid_dateTime TIMESTAMP(3), bid_extra VARCHAR(128)
) WITH ('connector' = 'blackhole');
INSERT INTO q9_sink
SELECT id, itemName, description, initialBid, reserve, dateTime, expires, seller, category, extra,
       auction, bidder, price, bid_dateTime, bid_extra
FROM (
  SELECT a.*, b.auction, b.bidder, b.price, b.dateTime AS bid_dateTime, b.extra AS bid_extra,
         ROW_NUMBER() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.dateTime ASC) AS place
  FROM auction AS a
  JOIN bid AS b ON b.auction = a.id
  WHERE b.dateTime BETWEEN a.dateTime AND a.expires
)
WHERE place <= 1;
