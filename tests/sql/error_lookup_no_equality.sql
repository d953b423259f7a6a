-- A lookup join needs an equality on a column of the looked-up table
-- (an expression of it is no lookup key), as Flink says.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, p_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bids.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_side.csv', 'format' = 'csv');
SELECT b.auction, s.`value` FROM bid AS b
JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s ON b.auction + 1 = s.key + 1;
