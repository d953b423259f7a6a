-- Interval joins (Flink's RowTimeIntervalJoin): a click within 10 seconds
-- after its ad's impression. Each pair once; an outer side's row that met no
-- partner goes out padded once, when the watermark passes its bound. Both
-- rowtimes stay time attributes: windows over either work after the join, whose
-- watermark is held back by the bound. Insert-only: compared as sets.
-- unordered
CREATE TABLE impressions (ad BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_impressions.json', 'format' = 'json');
CREATE TABLE clicks (cid STRING, ad BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/join_clicks.json', 'format' = 'json');

SELECT i.ad, c.cid, i.ts, c.ts FROM impressions i JOIN clicks c
  ON i.ad = c.ad AND c.ts BETWEEN i.ts AND i.ts + INTERVAL '10' SECOND;
SELECT i.ad, c.cid FROM impressions i LEFT JOIN clicks c
  ON i.ad = c.ad AND c.ts >= i.ts AND c.ts <= i.ts + INTERVAL '10' SECOND;
SELECT i.ad, c.cid FROM impressions i RIGHT JOIN clicks c
  ON i.ad = c.ad AND i.ts <= c.ts AND i.ts >= c.ts - INTERVAL '10' SECOND;
SELECT i.ad, c.cid FROM impressions i FULL JOIN clicks c
  ON c.ad = i.ad AND c.ts BETWEEN i.ts AND i.ts + INTERVAL '10' SECOND;

CREATE VIEW hits AS SELECT i.ad, c.cid, i.ts AS shown, c.ts AS clicked FROM impressions i
  JOIN clicks c ON i.ad = c.ad AND c.ts BETWEEN i.ts AND i.ts + INTERVAL '10' SECOND;
SELECT window_start, COUNT(*) AS hits FROM TABLE(TUMBLE(TABLE hits, DESCRIPTOR(shown), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) AS hits FROM TABLE(TUMBLE(TABLE hits, DESCRIPTOR(clicked), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
