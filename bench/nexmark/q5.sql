-- q5, hot items: in every 10-second window sliding by 2 seconds, the
-- auctions that drew the most bids.
CREATE TABLE q5_sink (auction BIGINT, num BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO q5_sink
SELECT hot.auction, hot.num
FROM (
  SELECT auction, COUNT(*) AS num, window_start AS wstart, window_end AS wend
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY auction, window_start, window_end
) AS hot
JOIN (
  SELECT per_auction.wstart, per_auction.wend, MAX(per_auction.num) AS top
  FROM (
    SELECT COUNT(*) AS num, window_start AS wstart, window_end AS wend
    FROM TABLE(HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
    GROUP BY auction, window_start, window_end
  ) AS per_auction
  GROUP BY per_auction.wstart, per_auction.wend
) AS best
ON hot.wstart = best.wstart AND hot.wend = best.wend AND hot.num >= best.top;
