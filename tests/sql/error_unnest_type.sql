-- UNNEST takes an ARRAY or a MAP.
CREATE TABLE orders (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'data/orders_items.json', 'format' = 'json');
SELECT id, x FROM orders CROSS JOIN UNNEST(id) AS t (x);
