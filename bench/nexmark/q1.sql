-- q1, currency conversion: each bid's price from dollars to euros.
CREATE TABLE q1_sink (auction BIGINT, bidder BIGINT, price DECIMAL(23, 3),
                      dateTime TIMESTAMP(3), extra VARCHAR(128)) WITH ('connector' = 'blackhole');
INSERT INTO q1_sink
SELECT auction, bidder, price * 0.908, dateTime, extra FROM bid;
