-- The Nexmark source and its three views, read before every query of the
-- suite (bench/nexmark/README.md). The runner replaces ${EVENTS},
-- ${RATE} and ${SEED} before it hands the text to weir's SQL.
--
-- One 'nexmark' table of every event with Flink's nested Nexmark schema;
-- the event time is the dateTime of whichever ROW the event fills, and the
-- watermark trails it by 4 seconds as in Flink's suite. Strings are sized
-- to what the generator makes (weir/nexmark.h): the 'extra' padding of an
-- auction reaches 6/5 of its 500-byte average.
CREATE TABLE nexmark (
  event_type INT,
  person ROW<id BIGINT, name VARCHAR(24), emailAddress VARCHAR(24), creditCard VARCHAR(20),
             city VARCHAR(16), state VARCHAR(4), dateTime TIMESTAMP(3), extra VARCHAR(256)>,
  auction ROW<id BIGINT, itemName VARCHAR(24), description VARCHAR(104), initialBid BIGINT,
              reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT,
              category BIGINT, extra VARCHAR(640)>,
  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR(16), url VARCHAR(96),
          dateTime TIMESTAMP(3), extra VARCHAR(128)>,
  dateTime AS CASE event_type WHEN 0 THEN person.dateTime
                              WHEN 1 THEN auction.dateTime
                              ELSE bid.dateTime END,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND
) WITH (
  'connector' = 'nexmark',
  'events.num' = '${EVENTS}',
  'first-event.rate' = '${RATE}',
  'next-event.rate' = '${RATE}',
  'seed' = '${SEED}',
  'base-time' = '2024-01-01 00:00:00'
);

CREATE VIEW person AS
  SELECT person.id, person.name, person.emailAddress, person.creditCard, person.city,
         person.state, dateTime, person.extra
  FROM nexmark WHERE event_type = 0;

CREATE VIEW auction AS
  SELECT auction.id, auction.itemName, auction.description, auction.initialBid,
         auction.reserve, dateTime, auction.expires, auction.seller, auction.category,
         auction.extra
  FROM nexmark WHERE event_type = 1;

CREATE VIEW bid AS
  SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, dateTime, bid.extra
  FROM nexmark WHERE event_type = 2;
