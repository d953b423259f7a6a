SET 'execution.savepoint.path' = '';
