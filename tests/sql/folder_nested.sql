-- unordered
-- A folder is read with its folders, as Flink's filesystem source reads a
-- path (Hive-style dt=.../hour=... folders): every file under it is a
-- partition, except what a name starting with '.' or '_' hides (_SUCCESS,
-- .part-1.csv.inprogress, the _temporary/ and .staging/ folders).
CREATE TABLE events (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'data/nested', 'format' = 'csv');

SELECT k, v, ts FROM events;
