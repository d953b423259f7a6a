-- A lookup join's file must be there when the query is planned: the error
-- names the table and the file.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, p_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bids.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/no_such_side_input.csv', 'format' = 'csv');
SELECT b.auction, s.`value` FROM bid AS b
JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s ON b.auction = s.key;
