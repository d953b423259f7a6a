-- q11, user sessions: how many bids each bidder makes in a session, a
-- session ending after 10 seconds without a bid.
CREATE TABLE q11_sink (bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3))
  WITH ('connector' = 'blackhole');
INSERT INTO q11_sink
SELECT b.bidder, COUNT(*),
       SESSION_START(b.dateTime, INTERVAL '10' SECOND),
       SESSION_END(b.dateTime, INTERVAL '10' SECOND)
FROM bid AS b
GROUP BY b.bidder, SESSION(b.dateTime, INTERVAL '10' SECOND);
