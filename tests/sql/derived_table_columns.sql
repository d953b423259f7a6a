-- A derived table's column list renames its columns, as Calcite's
-- AliasNamespace does: (VALUES ...) AS t(x), (SELECT ...) AS t(a, b), also as
-- a join's source; a VALUES of one column without a list is named after its
-- alias. A time attribute renamed stays one (the window below reads it).
-- unordered (the join of two sources emits its pairs as the two interleave)
SELECT x, x * 10 AS y FROM (VALUES (1), (2)) AS t(x);
SELECT t.b, a FROM (SELECT 1 AS p, 'q' AS q) t(a, b);
SELECT v FROM (VALUES (7)) AS v;
SELECT l.k, l.name, r.price
FROM (VALUES (1, 'one'), (2, 'two')) AS l(k, name)
JOIN (VALUES (2, 20), (3, 30)) AS r(k, price) ON l.k = r.k;
CREATE TABLE orders (`user` STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
SELECT who, TUMBLE_START(t, INTERVAL '10' SECOND) AS w, SUM(n) AS total
FROM (SELECT `user`, amount, ts FROM orders) AS o(who, n, t)
GROUP BY who, TUMBLE(t, INTERVAL '10' SECOND);
-- a table's alias may rename its columns too, as a join's source as well
SELECT o.who, n FROM orders AS o(who, n, t) WHERE n > 10;
SELECT a.who, b.amount FROM orders AS a(who, n, t) JOIN orders b ON a.who = b.`user` AND a.n = b.amount;
