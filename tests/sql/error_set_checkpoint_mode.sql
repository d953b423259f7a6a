SET 'execution.checkpointing.mode' = 'EXACTLY_TWICE';
