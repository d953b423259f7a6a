-- The fields a plan makes up are named as Flink's plans name them: an
-- aggregate call that the select list does not name itself (one under
-- HAVING, or inside an expression) is the aggregate's field $fN, and a
-- computed GROUP BY expression the Calc's field $fN, N being the field's
-- index in the node's output. The plain column of an expression over them
-- ($f1 * 2) reads the bare $-name, which weir's lexers take as Calcite does.
-- An aggregate's field whose $fN a computed key has already is made unique
-- as Calcite does: $f2 -> $f20.
CREATE TABLE orders (`user` STRING, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');

EXPLAIN SELECT `user`, COUNT(*) * 2 AS twice FROM orders GROUP BY `user` HAVING SUM(amount) > 10;

EXPLAIN SELECT MOD(amount, 2) AS parity, MAX(`user`) FROM orders GROUP BY MOD(amount, 2);

EXPLAIN SELECT MOD(amount, 2) AS parity, MAX(`user`) FROM orders GROUP BY MOD(amount, 2)
HAVING COUNT(*) > 1;

SELECT `user`, COUNT(*) * 2 AS twice FROM orders GROUP BY `user` HAVING SUM(amount) > 10;

SELECT MOD(amount, 2) AS parity, MAX(`user`) FROM orders GROUP BY MOD(amount, 2)
HAVING COUNT(*) > 1;
