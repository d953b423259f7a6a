-- A lookup join is INNER or LEFT; Flink's message for RIGHT and FULL.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, p_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bids.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_side.csv', 'format' = 'csv');
SELECT b.auction, s.`value` FROM bid AS b
RIGHT JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s ON b.auction = s.key;
