-- q0, pass-through: every bid as it comes; what the source and one
-- projection cost.
CREATE TABLE q0_sink (auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3),
                      extra VARCHAR(128)) WITH ('connector' = 'blackhole');
INSERT INTO q0_sink
SELECT auction, bidder, price, dateTime, extra FROM bid;
