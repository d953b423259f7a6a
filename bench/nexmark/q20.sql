-- q20, expand bids with their auction: every bid on a category-10 auction
-- with the auction's fields (a regular join).
CREATE TABLE q20_sink (
  auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR(16), url VARCHAR(96),
  bid_dateTime TIMESTAMP(3), bid_extra VARCHAR(128),
  itemName VARCHAR(24), description VARCHAR(104), initialBid BIGINT, reserve BIGINT,
  auction_dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT,
  auction_extra VARCHAR(640)
) WITH ('connector' = 'blackhole');
INSERT INTO q20_sink
SELECT b.auction, b.bidder, b.price, b.channel, b.url, b.dateTime, b.extra,
       a.itemName, a.description, a.initialBid, a.reserve, a.dateTime, a.expires, a.seller,
       a.category, a.extra
FROM bid AS b
JOIN auction AS a ON b.auction = a.id
WHERE a.category = 10;
