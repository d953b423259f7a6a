-- A timestamp's precision is 0 to 9, as Flink's TimestampType says.
CREATE TABLE t (ts TIMESTAMP(10)) WITH ('connector' = 'print');
