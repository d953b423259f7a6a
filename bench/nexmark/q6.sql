-- q6, average selling price by seller: the mean closing price of each
-- seller's last 10 closed auctions. The closing prices are an updating
-- stream, and Flink refuses an OVER window over one (FLINK-19059); weir
-- runs it (docs/SQL.md, OVER over an updating input).
CREATE TABLE q6_sink (seller BIGINT, avg_price BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO q6_sink
SELECT closing.seller,
       AVG(closing.price) OVER (PARTITION BY closing.seller ORDER BY closing.closed
                                ROWS BETWEEN 10 PRECEDING AND CURRENT ROW)
FROM (
  SELECT a.id, a.seller, MAX(b.price) AS price, a.expires AS closed
  FROM auction AS a
  JOIN bid AS b ON b.auction = a.id
  WHERE b.dateTime BETWEEN a.dateTime AND a.expires
  GROUP BY a.id, a.seller, a.expires
) AS closing;
