-- LISTAGG(x, sep) with a separator per row (a column, an expression), as
-- Flink's ListAggFunction accumulates it over an insert-only input: each
-- value joined with its own row's separator, a NULL separator making the
-- result NULL (the next value starts it again); window panes merge with the
-- later pane's last separator (HOP). Over an updating input the values are
-- joined by the last one's separator (ListAggWsWithRetractAggFunction).
CREATE TABLE r (k STRING, n INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/aggregates.json', 'format' = 'json');

SELECT k, LISTAGG(s, k), LISTAGG(s, CASE WHEN n > 5 THEN '+' ELSE CAST(NULL AS STRING) END)
FROM r GROUP BY k;

SELECT LISTAGG(s, '-' || k) FILTER (WHERE n > 0) FROM r;

SELECT window_start, LISTAGG(s, k) FROM TABLE(HOP(TABLE r, DESCRIPTOR(ts), INTERVAL '2' SECOND,
  INTERVAL '4' SECOND)) GROUP BY window_start, window_end;

SELECT LISTAGG(k, sep) FROM (SELECT k, LAST_VALUE(s) AS sep FROM r GROUP BY k);
