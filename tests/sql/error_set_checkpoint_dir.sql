-- Checkpoints go to a local folder (a path or a file:// URI), not HDFS or S3.
SET 'state.checkpoints.dir' = 'hdfs://namenode:8020/flink/checkpoints';
