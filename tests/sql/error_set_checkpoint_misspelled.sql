SET 'execution.checkpointing.intervall' = '10 s';
