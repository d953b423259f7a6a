-- q8, monitor new users: people who opened an account and put up an auction
-- within the same 10-second tumbling window.
CREATE TABLE q8_sink (id BIGINT, name VARCHAR(24), wstart TIMESTAMP(3))
  WITH ('connector' = 'blackhole');
INSERT INTO q8_sink
SELECT newcomer.id, newcomer.name, newcomer.wstart
FROM (
  SELECT id, name, window_start AS wstart, window_end AS wend
  FROM TABLE(TUMBLE(TABLE person, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY id, name, window_start, window_end
) AS newcomer
JOIN (
  SELECT seller, window_start AS wstart, window_end AS wend
  FROM TABLE(TUMBLE(TABLE auction, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY seller, window_start, window_end
) AS opened
ON newcomer.id = opened.seller AND newcomer.wstart = opened.wstart AND newcomer.wend = opened.wend;
