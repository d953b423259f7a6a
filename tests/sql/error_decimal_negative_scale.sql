-- A DECIMAL's scale is 0 to its precision (Flink's DecimalType refuses a
-- negative one).
CREATE TABLE t (d DECIMAL(5, -2)) WITH ('connector' = 'print');
