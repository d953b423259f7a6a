-- Expressions on nested values, as Flink has them: field access r.a (and
-- deeper, r.a.b; a NULL ROW's field is NULL), element access arr[i]
-- (1-based; an index out of range is NULL, Flink's default) and map['k']
-- (NULL for a key it does not have), CARDINALITY, IS [NOT] NULL, = and <>.
CREATE TABLE n (id INT, r ROW<a INT, b STRING>, arr ARRAY<INT>, m MAP<STRING, BIGINT>,
  deep ROW(p ROW<q ARRAY<DOUBLE>>, tags ARRAY<STRING>))
WITH ('connector' = 'filesystem', 'path' = 'data/types/nested.json', 'format' = 'json');
SELECT id, r.a, r.b, arr[1], arr[2], arr[0], arr[5], arr[-1], m['k1'], m['zz'], CARDINALITY(arr),
       CARDINALITY(m), deep.p.q[1], deep.tags[2], r IS NULL, deep.p IS NOT NULL, arr[id] FROM n;

-- In WHERE and GROUP BY.
SELECT id FROM n WHERE r.a > 5 OR arr[2] = 5;
SELECT r.b, COUNT(*) FROM n GROUP BY r.b;
SELECT id, arr = ARRAY[1, 2, 3], arr <> ARRAY[1, 2, 3] FROM n;

-- Constructors: ROW(...) (fields EXPR$0, EXPR$1, ...), ARRAY[...] and
-- MAP[...] (the elements' common type; a key given twice keeps its last
-- value), nested; CAST between nested types of the same shape (elements
-- that widen).
SELECT ROW(1, 'a'), ARRAY[1, 2, NULL], MAP['a', 1, 'b', 2, 'a', 3], ARRAY[ROW(1, 'x')][1].EXPR$1,
       CARDINALITY(ARRAY['x']), ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1] = ARRAY[2], ARRAY[1.5, 2][2],
       MAP[1, ARRAY['x']][1][1], ROW(ROW(1)).EXPR$0.EXPR$0;
SELECT CAST(arr AS ARRAY<BIGINT>), CAST(NULL AS ROW<x INT>), CAST(r AS ROW<x BIGINT, y STRING>) FROM n;

-- A nested field as a window's key, the window on a column of the table.
CREATE TABLE bids (ts TIMESTAMP(3), bid ROW<auction BIGINT, price BIGINT, extra ROW<tags ARRAY<STRING>>>,
  WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/types/nested_events.json', 'format' = 'json');
SELECT window_start, bid.auction, COUNT(*), MAX(bid.price), SUM(CARDINALITY(bid.extra.tags))
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECONDS))
GROUP BY window_start, window_end, bid.auction;

-- Into a sink: a constructed value takes the column's type (its capacity).
CREATE TABLE p (id INT, r ROW<a INT, b STRING>, arr ARRAY<BIGINT>, m MAP<STRING, INT>) WITH ('connector' = 'print');
INSERT INTO p SELECT id, ROW(id, 'k'), ARRAY[id, id + 1], MAP['id', id] FROM n;
