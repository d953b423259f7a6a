-- 'json.ignore-parse-errors': the two bad lines are skipped (counted as
-- filtered in the source's diagnostics).
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'data/bad.json', 'format' = 'json',
      'json.ignore-parse-errors' = 'true');
SELECT * FROM orders;
