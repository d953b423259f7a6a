-- q2, selection: the bids on every 123rd auction.
CREATE TABLE q2_sink (auction BIGINT, price BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO q2_sink
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0;
