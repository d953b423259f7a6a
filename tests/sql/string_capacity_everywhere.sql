-- The session's string capacity ('weir.string-capacity') is every schema's
-- of the plan, those the planner makes too: a VALUES (or a query without
-- FROM) and an UNNEST's output type a string of unknown length with it
-- (REPEAT by a column's count here; CAST(... AS STRING), LISTAGG, JSON_OBJECT).
SET 'weir.string-capacity' = '100';
SELECT n, REPEAT('ab', n) AS s FROM (VALUES (40)) AS t(n);
CREATE TABLE orders (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'data/orders_items.json', 'format' = 'json');
SELECT id, x, REPEAT(x, CHAR_LENGTH(x) * 5) AS s FROM orders CROSS JOIN UNNEST(tags) AS u(x);
