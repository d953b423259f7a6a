-- q12, processing-time windows: bids per bidder in 10-second windows of the
-- job's clock.
CREATE TABLE q12_sink (bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3))
  WITH ('connector' = 'blackhole');
INSERT INTO q12_sink
SELECT b.bidder, COUNT(*),
       TUMBLE_START(b.arrived, INTERVAL '10' SECOND),
       TUMBLE_END(b.arrived, INTERVAL '10' SECOND)
FROM (SELECT bidder, PROCTIME() AS arrived FROM bid) AS b
GROUP BY b.bidder, TUMBLE(b.arrived, INTERVAL '10' SECOND);
