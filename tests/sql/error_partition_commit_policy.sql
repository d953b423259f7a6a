-- The 'metastore' partition commit policy is a Hive catalog's: a
-- filesystem table's partitions are its folders (weir makes success files).
CREATE TABLE visits (id BIGINT, dt STRING)
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json',
      'sink.partition-commit.policy.kind' = 'metastore,success-file');
