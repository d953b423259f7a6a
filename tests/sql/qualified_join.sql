-- A.* over a join: every column of source A in its order (Nexmark q9:
-- SELECT A.*, B.auction, ... ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY
-- B.price DESC, B.dateTime ASC) ...), and a rank over a join whose
-- partition and order name the sources' columns by their aliases: each
-- user's largest order. A join of two sources interleaves their rows as
-- they come, so the changelog is compared as the final table it makes.
-- final
CREATE TABLE users (uid BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'data/join_users.json', 'format' = 'json');
CREATE TABLE orders (oid BIGINT, uid BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'data/join_orders.json', 'format' = 'json');

SELECT U.*, O.oid FROM users U JOIN orders O ON U.uid = O.uid;
SELECT O.*, U.* FROM users U, orders O WHERE U.uid = O.uid AND O.amount > 10;

SELECT uid, name, oid, amount FROM (
  SELECT U.*, O.oid, O.amount,
         ROW_NUMBER() OVER (PARTITION BY U.uid ORDER BY O.amount DESC, O.oid ASC) AS rownum
  FROM users U, orders O WHERE U.uid = O.uid)
WHERE rownum <= 1;
