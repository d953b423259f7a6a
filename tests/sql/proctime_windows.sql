-- A processing-time attribute (`proc AS PROCTIME()`, Flink's
-- TIMESTAMP_LTZ(3) *PROCTIME*): its value is the job clock when the row is
-- read, and windows over it run on that clock (Flink's processing-time
-- windows: a row goes into the windows of the time the window operator
-- reads it, a window fires when the clock passes its end, no row is late).
-- weir sql runs on the virtual clock by default, on which a paced source's
-- rows come at their due times (ten a second here, from 1970-01-01
-- 00:00:00), so the output is the same on every run. A window still open
-- when the input ends does not fire, as in Flink: the last rows' windows
-- (from 00:00:02) give nothing.
CREATE TABLE clicks (
  `key` BIGINT,
  `value` BIGINT,
  ts TIMESTAMP(3),
  proc AS PROCTIME()
) WITH ('connector' = 'datagen', 'number-of-rows' = '25', 'keys' = '3',
        'rows-per-second' = '10', 'seed' = '7', 'pace' = 'paced');

-- the attribute, and PROCTIME() in a select list
SELECT `key`, ts, proc, PROCTIME() AS now_too FROM clicks WHERE `key` = 1;

-- group windows: TUMBLE, HOP, SESSION
SELECT TUMBLE_START(proc, INTERVAL '1' SECOND) AS ws, TUMBLE_END(proc, INTERVAL '1' SECOND) AS we,
       COUNT(*) AS n, SUM(`value`) AS s
FROM clicks GROUP BY TUMBLE(proc, INTERVAL '1' SECOND);

SELECT HOP_START(proc, INTERVAL '500' MILLISECOND, INTERVAL '1' SECOND) AS ws, COUNT(*) AS n
FROM clicks GROUP BY HOP(proc, INTERVAL '500' MILLISECOND, INTERVAL '1' SECOND);

SELECT `key`, SESSION_START(proc, INTERVAL '150' MILLISECOND) AS s,
       SESSION_END(proc, INTERVAL '150' MILLISECOND) AS e, COUNT(*) AS n
FROM clicks GROUP BY SESSION(proc, INTERVAL '150' MILLISECOND), `key`;

-- window TVFs: TUMBLE, HOP, CUMULATE (window_time is the output's
-- processing-time attribute)
SELECT window_start, window_end, `key`, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(proc), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, `key`;

SELECT window_start, window_end, window_time, COUNT(*) AS n
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(proc), INTERVAL '500' MILLISECOND, INTERVAL '1' SECOND))
GROUP BY window_start, window_end, window_time;

SELECT window_start, window_end, COUNT(*) AS n, MAX(`value`) AS top
FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(proc), INTERVAL '500' MILLISECOND, INTERVAL '1' SECOND))
GROUP BY window_start, window_end;

EXPLAIN SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(proc), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
