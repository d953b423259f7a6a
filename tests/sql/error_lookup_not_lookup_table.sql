-- FOR SYSTEM_TIME AS OF a processing-time attribute against a table whose
-- connector cannot look up (datagen): Flink plans it into a processing-time
-- temporal join, which it refuses.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, p_time AS PROCTIME())
WITH ('connector' = 'filesystem', 'path' = 'data/lookup_bids.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` BIGINT)
WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT b.auction, s.`value` FROM bid AS b
JOIN side_input FOR SYSTEM_TIME AS OF b.p_time AS s ON b.auction = s.key;
