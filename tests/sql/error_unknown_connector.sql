-- An unknown connector: Flink's message, with the factories weir has.
CREATE TABLE k (a BIGINT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:x');
