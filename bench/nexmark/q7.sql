-- q7, highest bid: the bids that carry the top price of their 10-second
-- tumbling window.
CREATE TABLE q7_sink (auction BIGINT, price BIGINT, bidder BIGINT, dateTime TIMESTAMP(3),
                      extra VARCHAR(128)) WITH ('connector' = 'blackhole');
INSERT INTO q7_sink
SELECT b.auction, b.price, b.bidder, b.dateTime, b.extra
FROM bid AS b
JOIN (
  SELECT MAX(price) AS top, window_end AS wend
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) AS w ON b.price = w.top
WHERE b.dateTime BETWEEN w.wend - INTERVAL '10' SECOND AND w.wend;
