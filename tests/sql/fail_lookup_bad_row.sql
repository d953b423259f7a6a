-- A row of a lookup join's file that does not parse fails the job when the
-- join loads the table, at the file's line.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, p_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bids.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bad.csv', 'format' = 'csv');
SELECT b.auction, s.`value` FROM bid AS b
JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s ON b.auction = s.key;
