SET 'parallelism.defualt' = '2';
