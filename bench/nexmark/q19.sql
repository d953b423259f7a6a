-- q19, auction top 10: each auction's ten highest bids (Top-N).
CREATE TABLE q19_sink (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR(16),
                       url VARCHAR(96), dateTime TIMESTAMP(3), extra VARCHAR(128), place BIGINT)
  WITH ('connector' = 'blackhole');
INSERT INTO q19_sink
SELECT *
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS place
  FROM bid
)
WHERE place <= 10;
