-- A lookup join (Flink's LookupJoin with the FULL cache): each bid looks up
-- the rows of a filesystem table loaded whole at the join's start (each
-- subtask its own copy), FOR SYSTEM_TIME AS OF the bid's processing-time
-- attribute. The key may be an expression of the probe side (Nexmark q13's
-- MOD(B.auction, 10000) = S.key); a key found twice in the file gives two
-- rows, in the file's order; a NULL key meets nothing; LEFT pads NULLs.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, p_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bids.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_side.csv', 'format' = 'csv');

-- Nexmark q13: PROCTIME() in a subquery is the processing-time attribute
SELECT B.auction, B.bidder, B.price, S.`value`
FROM (SELECT auction, bidder, price, PROCTIME() AS p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON MOD(B.auction, 10000) = S.key;

-- a column key, LEFT: a bid with no row goes out padded
SELECT b.auction, b.bidder, s.key, s.`value`
FROM bid AS b LEFT JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s
ON b.bidder = s.key;

-- the rest of ON filters the rows found (LEFT: none left is padded too)
SELECT b.auction, s.`value`
FROM bid AS b LEFT JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s
ON MOD(b.auction, 10000) = s.key AND s.`value` <> 'two';

-- the table named without an alias; a constant key
SELECT auction, `value` FROM bid JOIN side_input FOR SYSTEM_TIME AS OF bid.p_time
ON side_input.key = 5 AND bid.bidder = 7;

EXPLAIN CHANGELOG_MODE SELECT B.auction, S.`value`
FROM bid B JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON MOD(B.auction, 10000) = S.key;
