-- Flink's shortest checkpoint interval is 10 ms.
SET 'execution.checkpointing.interval' = '5 ms';
