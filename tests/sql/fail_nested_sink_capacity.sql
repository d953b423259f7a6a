-- A constructed ARRAY of more elements than the sink column's capacity
-- ('weir.collection-capacity') fails the job, never cut.
SET 'weir.collection-capacity' = '2';
CREATE TABLE p (id INT, arr ARRAY<BIGINT>) WITH ('connector' = 'print');
INSERT INTO p SELECT 1, ARRAY[1, 2, 3];
