-- q4, average closing price per category: an auction's closing price is its
-- highest bid made while it was open; then the mean of those per category
-- (a join, an aggregate, and an aggregate over its updates).
CREATE TABLE q4_sink (category BIGINT, avg_price BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO q4_sink
SELECT closing.category, AVG(closing.price)
FROM (
  SELECT a.id, a.category, MAX(b.price) AS price
  FROM auction AS a
  JOIN bid AS b ON b.auction = a.id
  WHERE b.dateTime BETWEEN a.dateTime AND a.expires
  GROUP BY a.id, a.category
) AS closing
GROUP BY closing.category;
