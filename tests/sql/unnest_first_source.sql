-- UNNEST as the first source, FROM UNNEST(ARRAY[...]) AS t(x): the
-- collection's rows over one row (Calcite's Uncollect over Values, a
-- Correlate in Flink's plan), its columns as a joined UNNEST's are (an
-- element, a ROW's fields, a MAP's KEY and VALUE, ORDINALITY), named by the
-- alias list; then filtered, aggregated or joined as any table.
SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t(x);
SELECT x * 10 AS y, t.x FROM UNNEST(ARRAY[1, 2]) t (x);
SELECT * FROM UNNEST(ARRAY['a', 'b']) WITH ORDINALITY AS t(s, i);
SELECT * FROM UNNEST(MAP['k', 1, 'j', 2]) AS m(k, v);
SELECT * FROM UNNEST(ARRAY[ROW(1, 'a'), ROW(2, 'b')]) AS r(n, s) WHERE n > 1;
SELECT u.k, v.s FROM UNNEST(ARRAY[1, 2]) AS u(k) JOIN (VALUES (2, 'two'), (3, 'three')) AS v(k, s) ON u.k = v.k;
EXPLAIN SELECT * FROM UNNEST(ARRAY[1, 2, 3]) AS t(x);
-- an alias without a list names a one-column UNNEST's column (Calcite's
-- AliasNamespace), joined too; ORDINALITY keeps its name
SELECT t, ORDINALITY FROM UNNEST(ARRAY['a', 'b']) WITH ORDINALITY AS t;
CREATE TABLE orders (id INT, tags ARRAY<STRING>)
WITH ('connector' = 'filesystem', 'path' = 'data/orders_items.json', 'format' = 'json');
SELECT id, tag FROM orders CROSS JOIN UNNEST(tags) AS tag;
