-- q13, bounded side input join: each bid with the value a side file gives
-- its auction's residue mod 10 000, the file loaded whole at start. The
-- runner writes ${OUT}/side_input.csv (key, value).
CREATE TABLE side_input (k BIGINT, v VARCHAR(16))
  WITH ('connector' = 'filesystem', 'path' = '${OUT}/side_input.csv', 'format' = 'csv');
CREATE TABLE q13_sink (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3),
                       v VARCHAR(16)) WITH ('connector' = 'blackhole');
INSERT INTO q13_sink
SELECT b.auction, b.bidder, b.price, b.dateTime, s.v
FROM (SELECT *, PROCTIME() AS arrived FROM bid) AS b
JOIN side_input FOR SYSTEM_TIME AS OF b.arrived AS s ON MOD(b.auction, 10000) = s.k;
