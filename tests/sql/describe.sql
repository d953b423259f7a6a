-- DESCRIBE (DESC) as Flink's SQL client shows it: a row per column, its type
-- (a time attribute marked *ROWTIME* or *PROCTIME*), whether it takes NULL,
-- the primary key, a computed column's expression, the rowtime's watermark;
-- a view's columns as its query makes them, its time attributes kept.
CREATE TABLE orders (
  `user` BIGINT NOT NULL, product STRING, amount DECIMAL(10, 2), price AS amount * 2,
  ts TIMESTAMP(3), proc AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (`user`) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.json', 'format' = 'json');
DESCRIBE orders;

CREATE VIEW recent AS SELECT `user`, ts, proc, CAST(ts AS DATE) AS d FROM orders;
DESC recent;

CREATE TABLE grouped (k STRING, n BIGINT) WITH ('connector' = 'print');
DESCRIBE grouped;
