-- ORDER BY and LIMIT on a stream (SEMANTICS.md 10). Rows, in file order:
-- a 10 @1, b 5 @1, a 20 @2, a 30 @2, b 7 @3, a 1 @1.5, c 3 @0.5, b 8 @2.5,
-- a 40 @4, a 50 @5; the watermark 1 s behind the largest time.
CREATE TABLE t (k STRING, amount BIGINT, ts TIMESTAMP(3),
                WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'data/over.json', 'format' = 'json',
      'scan.watermark.emit.strategy' = 'on-event');

-- ORDER BY the rowtime (a TemporalSort): rows held until the watermark,
-- then in time order, ties by the further keys; a 1 and c 3 come at or
-- below the watermark and are dropped.
EXPLAIN CHANGELOG_MODE SELECT * FROM t ORDER BY ts, amount DESC;
SELECT * FROM t ORDER BY ts, amount DESC;

-- LIMIT alone: the first rows as they come (a Limit, insert-only).
EXPLAIN CHANGELOG_MODE SELECT k, amount FROM t LIMIT 3;
SELECT k, amount FROM t LIMIT 3;
SELECT k, amount FROM t LIMIT 2 OFFSET 1;

-- ORDER BY any column with LIMIT: a Top-N of the whole table (SortLimit),
-- +I for a row that enters it, -D for the one it pushes out.
EXPLAIN CHANGELOG_MODE SELECT k, amount FROM t ORDER BY amount DESC LIMIT 2;
SELECT k, amount FROM t ORDER BY amount DESC LIMIT 2;
SELECT k, amount FROM t ORDER BY amount FETCH FIRST 1 ROW ONLY;
