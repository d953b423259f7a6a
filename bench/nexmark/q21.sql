-- q21, add a channel id: the four known channels by name, any other from the
-- channel_id parameter of the bid's URL (bids with neither are dropped).
CREATE TABLE q21_sink (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR(16),
                       channel_id VARCHAR(96)) WITH ('connector' = 'blackhole');
INSERT INTO q21_sink
SELECT auction, bidder, price, channel,
       CASE LOWER(channel) WHEN 'apple' THEN '0'
                           WHEN 'google' THEN '1'
                           WHEN 'facebook' THEN '2'
                           WHEN 'baidu' THEN '3'
                           ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END
FROM bid
WHERE LOWER(channel) IN ('apple', 'google', 'facebook', 'baidu')
   OR REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL;
