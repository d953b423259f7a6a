-- IS JSON takes a character string (Calcite's message).
SELECT 1 IS JSON AS j;
