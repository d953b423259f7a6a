-- q18, last bid: each bidder's latest bid on each auction (deduplication
-- keeping the last row by event time).
CREATE TABLE q18_sink (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR(16),
                       url VARCHAR(96), dateTime TIMESTAMP(3), extra VARCHAR(128))
  WITH ('connector' = 'blackhole');
INSERT INTO q18_sink
SELECT auction, bidder, price, channel, url, dateTime, extra
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS recency
  FROM bid
)
WHERE recency = 1;
