-- scratch
-- unordered
-- INSERT INTO a filesystem table PARTITIONED BY, as Flink's
-- FileSystemTableSink writes it: each row into the folder of its partition
-- values (out/visits/dt=2024-01-01/h=9/), a value escaped as Flink's
-- PartitionPathUtils does ('/' as %2F, ':' as %3A, '=' as %3D, '%' as %25),
-- NULL and '' into __DEFAULT_PARTITION__ ('partition.default-name'), and
-- the files holding the other columns only. Read back, the folders give
-- the partition columns their values again, typed by their columns ('' comes
-- back NULL, as in Flink).
CREATE TABLE visits (id BIGINT, page STRING, dt STRING, h INT)
PARTITIONED BY (dt, h)
WITH ('connector' = 'filesystem', 'path' = 'out/visits', 'format' = 'json');
INSERT INTO visits VALUES
  (1, 'home', '2024-01-01', 9),
  (2, 'cart', '2024-01-01', 10),
  (3, 'home', 'a/b:c=d%e', 9),
  (4, 'help', NULL, NULL),
  (5, 'help', '', 11);
SELECT * FROM visits;

-- The files hold id and page only: read as a table without partitions,
-- dt and h are NULL.
CREATE TABLE files (id BIGINT, page STRING, dt STRING, h INT)
WITH ('connector' = 'filesystem', 'path' = 'out/visits', 'format' = 'json');
SELECT * FROM files WHERE id = 1;

-- CSV, partition columns of other types (a TIMESTAMP's folder is Java's
-- LocalDateTime text, 2024-01-01T10%3A00), their own default name.
CREATE TABLE readings (sensor STRING, v DOUBLE, ts TIMESTAMP(3), ok BOOLEAN, x DOUBLE)
PARTITIONED BY (ts, ok, x)
WITH ('connector' = 'filesystem', 'path' = 'out/readings', 'format' = 'csv',
      'partition.default-name' = 'unknown');
INSERT INTO readings VALUES
  ('s1', 0.5, CAST('2024-01-01 10:00:00' AS TIMESTAMP(3)), true, 1.5),
  ('s2, "two"', NULL, CAST('2024-01-01 10:00:01.250' AS TIMESTAMP(3)), false, 1e10),
  ('s3', 2.0, NULL, NULL, NULL);
SELECT * FROM readings;
