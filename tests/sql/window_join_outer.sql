-- Outer window joins: a row without a partner in its window (none of its
-- key there, a NULL key, or every pair refused by the rest of ON) goes out
-- once, padded with NULLs, when its window fires; FULL pads both sides.
-- Insert-only (Flink's WindowJoin emits no retraction): compared as sets.
-- unordered
CREATE TABLE lt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_left.json', 'format' = 'json');
CREATE TABLE rt (id STRING, k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/wjoin_right.json', 'format' = 'json');
CREATE VIEW lw AS SELECT * FROM TABLE(TUMBLE(TABLE lt, DESCRIPTOR(ts), INTERVAL '10' SECOND));
CREATE VIEW rw AS SELECT * FROM TABLE(TUMBLE(TABLE rt, DESCRIPTOR(ts), INTERVAL '10' SECOND));

SELECT L.id, R.id, L.window_start FROM lw L LEFT JOIN rw R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

SELECT L.id, R.id, R.window_start FROM lw L RIGHT JOIN rw R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

SELECT L.id, R.id, COALESCE(L.window_start, R.window_start) AS window_start,
       COALESCE(L.window_end, R.window_end) AS window_end
FROM lw L FULL JOIN rw R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end;

-- the rest of ON refuses L2's pair: L2 padded, R1 still met L1
SELECT L.id, R.id FROM lw L FULL JOIN rw R
ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end AND R.ts > L.ts;
