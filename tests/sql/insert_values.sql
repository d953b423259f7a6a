-- INSERT ... VALUES and a column list: the columns left out are NULL, an
-- INT goes into a BIGINT column (Flink's implicit cast), VALUES's columns
-- take the type their rows have in common (EXPR$0, EXPR$1 ...), and a
-- SELECT without FROM is one row.
CREATE TABLE t (id BIGINT, name STRING, score DOUBLE) WITH ('connector' = 'print');
INSERT INTO t VALUES (1, 'one', 1.5), (2, 'two', 2);
INSERT INTO t (name, id) VALUES ('only a name and an id', 3);
INSERT INTO t (score) SELECT 0.25;
INSERT INTO t SELECT EXPR$0 * 10, UPPER(EXPR$1), NULL FROM (VALUES (4, 'four'), (5, 'five'));
SELECT * FROM (VALUES (1, 'a'), (2.5, 'abc'), (NULL, 'ab'));
SELECT 1 + 1 AS two, 'x' AS x;
