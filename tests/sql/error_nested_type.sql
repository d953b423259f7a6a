-- A MAP takes a key and a value type.
CREATE TABLE n (id INT, m MAP<STRING>) WITH ('connector' = 'print');
