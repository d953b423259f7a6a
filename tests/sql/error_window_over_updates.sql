-- A window TVF over an updating table is refused (window aggregates need
-- an insert-only input, SEMANTICS.md 9), at the table's place.
CREATE TABLE balances (account STRING, balance BIGINT, ts TIMESTAMP(3),
                       WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/balances.json', 'format' = 'json',
      'changelog-mode' = 'all', 'changelog.kind-field' = 'op');

SELECT window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE balances, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
