-- A TIMESTAMP literal needs its time: Calcite's message.
SELECT TIMESTAMP '2024-01-05';
