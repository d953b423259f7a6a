-- A computed column is computed when the table is read, never written: an
-- INSERT naming it in its column list is refused.
CREATE TABLE copy (sensor STRING, celsius INT, kelvin AS celsius + 273)
WITH ('connector' = 'print');
INSERT INTO copy (sensor, kelvin) VALUES ('north', 291);
