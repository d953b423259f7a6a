-- weir's generator as a table: keyed group windows (TUMBLE, SESSION) and a
-- view with a computed key and HAVING.
CREATE TABLE clicks (
  `key` BIGINT,
  `value` BIGINT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '20', 'keys' = '3',
        'rows-per-second' = '10', 'seed' = '7');

SELECT `key`, TUMBLE_START(ts, INTERVAL '1' SECOND) AS ws, COUNT(*) AS n, SUM(`value`) AS s
FROM clicks
GROUP BY TUMBLE(ts, INTERVAL '1' SECOND), `key`;

SELECT `key`, SESSION_START(ts, INTERVAL '150' MILLISECOND) AS s,
       SESSION_END(ts, INTERVAL '150' MILLISECOND) AS e, COUNT(*)
FROM clicks
GROUP BY SESSION(ts, INTERVAL '150' MILLISECOND), `key`;

CREATE VIEW parity AS SELECT `key` % 2 AS odd, `value` FROM clicks;

SELECT odd, COUNT(*) * 10 AS c10 FROM parity GROUP BY odd HAVING SUM(`value`) > 300;

SELECT `key` + 1 AS k1, MIN(`value`) FROM clicks GROUP BY `key` + 1;

SELECT DISTINCT `key` FROM clicks;
