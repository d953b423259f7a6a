-- UNNEST, as Flink plans it (a Correlate over $UNNEST_ROWS$1): each row joined
-- with the rows of an ARRAY or a MAP it holds. An ARRAY of ROWs gives the
-- ROW's fields as columns, a MAP its KEY and VALUE, WITH ORDINALITY the
-- 1-based position; an empty or NULL collection gives no row (CROSS JOIN, a
-- comma), or the row once with NULLs (LEFT JOIN ... ON TRUE). The rowtime
-- passes through: a window over the unnested rows.
CREATE TABLE orders (
  id INT, ts TIMESTAMP(3),
  items ARRAY<ROW<sku STRING, qty INT>>, tags ARRAY<STRING>, attrs MAP<STRING, STRING>,
  WATERMARK FOR ts AS ts
) WITH ('connector' = 'filesystem', 'path' = 'data/orders_items.json', 'format' = 'json');

SELECT o.id, t.tag FROM orders o CROSS JOIN UNNEST(o.tags) AS t (tag);

SELECT id, sku, qty FROM orders CROSS JOIN UNNEST(items) AS i (sku, qty) WHERE qty IS NULL OR qty > 1;

SELECT id, k, v FROM orders, UNNEST(attrs) AS a (k, v);

SELECT id, tag, pos FROM orders LEFT JOIN UNNEST(tags) WITH ORDINALITY AS t (tag, pos) ON TRUE;

SELECT id, EXPR$0 FROM orders CROSS JOIN UNNEST(ARRAY[id, id * 10]);

SELECT tag, TUMBLE_START(ts, INTERVAL '5' SECOND) AS w, COUNT(*) AS n
FROM orders CROSS JOIN UNNEST(tags) AS t (tag)
GROUP BY tag, TUMBLE(ts, INTERVAL '5' SECOND);

EXPLAIN SELECT o.id, t.tag FROM orders o CROSS JOIN UNNEST(o.tags) AS t (tag);
