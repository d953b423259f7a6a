-- An UNNEST's column names are as many as its columns (Calcite's message).
CREATE TABLE orders (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'data/orders_items.json', 'format' = 'json');
SELECT id FROM orders CROSS JOIN UNNEST(tags) AS t (x, y);
