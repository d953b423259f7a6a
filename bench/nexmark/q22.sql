-- q22, URL directories: the first three directories of each bid's URL.
CREATE TABLE q22_sink (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR(16),
                       dir1 VARCHAR(96), dir2 VARCHAR(96), dir3 VARCHAR(96))
  WITH ('connector' = 'blackhole');
INSERT INTO q22_sink
SELECT auction, bidder, price, channel,
       SPLIT_INDEX(url, '/', 3), SPLIT_INDEX(url, '/', 4), SPLIT_INDEX(url, '/', 5)
FROM bid;
