-- A source-only connector cannot be written (Flink's message).
CREATE TABLE gen (key BIGINT, value BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
INSERT INTO gen VALUES (1, 2);
