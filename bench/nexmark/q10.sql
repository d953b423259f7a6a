-- q10, log to a file system: every bid written to files partitioned by its
-- day and minute. The runner replaces ${OUT} with a fresh folder.
CREATE TABLE q10_sink (
  auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP(3), extra VARCHAR(128),
  dt VARCHAR(10), hm VARCHAR(5)
) PARTITIONED BY (dt, hm) WITH ('connector' = 'filesystem', 'path' = '${OUT}/q10', 'format' = 'csv');
INSERT INTO q10_sink
SELECT auction, bidder, price, dateTime, extra,
       DATE_FORMAT(dateTime, 'yyyy-MM-dd'), DATE_FORMAT(dateTime, 'HH:mm')
FROM bid;
