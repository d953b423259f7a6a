-- The 'nexmark' connector: the Nexmark events (weir/nexmark.h) with the
-- nested schema of Flink's Nexmark DDL, its fields taken by name (a field
-- left out is not made; 'extra' is left out here: it is padding). Each
-- event fills its own ROW, the others are NULL; seeded, so every run is
-- the same. Flink's DDL has the computed column dateTime AS CASE ... and a
-- WATERMARK on it; here the views read each ROW's own dateTime.
CREATE TABLE nexmark (
  event_type INT,
  person ROW<id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, state STRING, dateTime TIMESTAMP(3)>,
  auction ROW<id BIGINT, itemName STRING, description VARCHAR(200), initialBid BIGINT, reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT>,
  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url VARCHAR(200), dateTime TIMESTAMP(3)>
) WITH ('connector' = 'nexmark', 'events.num' = '60', 'first-event.rate' = '1000', 'seed' = '7',
        'base-time' = '2024-01-01 00:00:00');
SELECT * FROM nexmark WHERE event_type < 2;

-- Flink's Nexmark views and its q1 and q2 over them.
CREATE VIEW person AS SELECT person.id, person.name, person.emailAddress, person.creditCard, person.city,
  person.state, person.dateTime FROM nexmark WHERE event_type = 0;
CREATE VIEW bid AS SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, bid.dateTime
  FROM nexmark WHERE event_type = 2;
SELECT auction, bidder, 0.908 * price AS price, dateTime FROM bid WHERE bidder > 1002;
SELECT auction, price FROM bid WHERE MOD(auction, 1007) = 0; -- q2 (123 in Flink's, for millions of events)
SELECT id, name, city FROM person;
SELECT bid.channel, COUNT(*) FROM nexmark WHERE bid IS NOT NULL GROUP BY bid.channel;
