-- Processing-time OVER (Flink's ProcTime{Rows,Range}{Bounded,Unbounded}
-- PrecedingFunction): ORDER BY the processing-time attribute. A row's time
-- is the job clock when the OVER reads it (on weir sql's virtual clock a
-- paced source's rows come at their due times, ten a second here, so the
-- output is the same on every run). ROWS frames and the unbounded RANGE
-- emit a row at once; a bounded RANGE frame at the end of its millisecond,
-- with every row of it (its peers), so its last row, whose millisecond has
-- not ended when the input ends, does not go out (as a processing-time
-- window still open then does not fire). No row is late.
CREATE TABLE clicks (
  `key` BIGINT,
  `value` BIGINT,
  ts TIMESTAMP(3),
  proc AS PROCTIME()
) WITH ('connector' = 'datagen', 'number-of-rows' = '12', 'keys' = '2',
        'rows-per-second' = '10', 'seed' = '7', 'pace' = 'paced');
EXPLAIN SELECT `key`, `value`, SUM(`value`) OVER (PARTITION BY `key` ORDER BY proc ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM clicks;
SELECT `key`, `value`, proc, SUM(`value`) OVER (PARTITION BY `key` ORDER BY proc ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s,
  COUNT(*) OVER (PARTITION BY `key` ORDER BY proc ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS n FROM clicks;
SELECT `key`, `value`, SUM(`value`) OVER (PARTITION BY `key` ORDER BY proc RANGE BETWEEN INTERVAL '0.25' SECOND PRECEDING AND CURRENT ROW) AS s FROM clicks;
SELECT `key`, `value`, SUM(`value`) OVER (PARTITION BY `key` ORDER BY proc) AS s FROM clicks;
