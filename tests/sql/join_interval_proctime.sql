-- A processing-time interval join (Flink's ProcTimeIntervalJoin): bounds
-- between two PROCTIME() attributes. A row's time is the job clock when the
-- join reads it; rows expire by the clock (processing-time timers), and a
-- LEFT join's row that met none goes out padded when it expires. weir sql
-- runs on the virtual clock, on which the paced sources' rows come at their
-- due times (clicks every 100 ms, views every 250 ms), so the output is the
-- same on every run. A row still waiting when the input ends is not padded
-- (processing-time timers do not fire at the end, as in Flink).
-- unordered
CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3), proc AS PROCTIME())
WITH ('connector' = 'datagen', 'number-of-rows' = '12', 'keys' = '2',
      'rows-per-second' = '10', 'seed' = '3', 'pace' = 'paced');
CREATE TABLE views (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3), proc AS PROCTIME())
WITH ('connector' = 'datagen', 'number-of-rows' = '5', 'keys' = '2',
      'rows-per-second' = '4', 'seed' = '4', 'pace' = 'paced');

-- each click with the views of its key from 150 ms before it to 50 ms after
SELECT c.`key`, c.proc AS click_time, v.proc AS view_time
FROM clicks c JOIN views v
ON c.`key` = v.`key` AND c.proc BETWEEN v.proc - INTERVAL '0.05' SECOND AND v.proc + INTERVAL '0.15' SECOND;

SELECT c.`key`, c.proc AS click_time, v.proc AS view_time
FROM clicks c LEFT JOIN views v
ON c.`key` = v.`key` AND c.proc BETWEEN v.proc - INTERVAL '0.05' SECOND AND v.proc + INTERVAL '0.15' SECOND;

EXPLAIN SELECT c.`key` FROM clicks c JOIN views v
ON c.`key` = v.`key` AND c.proc BETWEEN v.proc - INTERVAL '0.05' SECOND AND v.proc + INTERVAL '0.15' SECOND;
