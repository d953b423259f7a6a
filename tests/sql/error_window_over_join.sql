CREATE TABLE impressions (ad BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_impressions.json', 'format' = 'json');
CREATE TABLE clicks (cid STRING, ad BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_clicks.json', 'format' = 'json');
CREATE VIEW j AS SELECT i.ad, i.ts FROM impressions i JOIN clicks c ON i.ad = c.ad;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
